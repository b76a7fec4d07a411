"""The computer players' knowledge and aim: which colour people think of for a word, in six
languages, and where on the board a guesser puts a pawn or which word a giver says. Pure: it
reads its shipped table and nothing else, and the same question always gets the same answer."""

from console.game.rules import COMPUTER_LEVELS as LEVELS  # noqa: F401 (the levels, as the record names them)

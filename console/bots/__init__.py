"""The computer players' knowledge and aim: which colour people think of for a word, in six
languages, and where on the board a guesser puts a pawn or which word a giver says. Pure: it
reads its shipped table and nothing else, and the same question always gets the same answer."""

LEVELS = ("child", "expert")  # the child aims less well and knows fewer words

"""The comparative lab: the console measured against anchors (a minimal Starlette broadcast, a
bare wait loop), in processes of its own, in a CPU quota, under attack, opcode by opcode. It runs
from a checkout (`python -m bench`), never on a box: it is not in the wheel. What a maker runs on
their own Pi is `hues-console bench` (console/commands/measure.py), which this lab builds on.
"""

import os

# The checkout, where the lab's children run from (`python -m bench.…`). os.path, not pathlib:
# the start-up child imports this, and the console itself imports no pathlib at its start.
CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

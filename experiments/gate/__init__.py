"""`packbench gate`: a regression gate for a user's own experiment config.

Modules: `tolerances` (the ``[gate]`` table), `cells` (a results directory
reduced to (source, budget, strategy) figures), `verdict` (each figure against
the baseline), `speed_suite` (the config's cells as paired benchmark cases for
``--against``). The command lives in `experiments/commands/gate.py`.
"""

from .cells import CellStats, cell_stats, load_rows
from .tolerances import Tolerances, parse_tolerances
from .verdict import CellVerdict, compare_cells

__all__ = ["CellStats", "CellVerdict", "Tolerances", "cell_stats", "compare_cells", "load_rows", "parse_tolerances"]

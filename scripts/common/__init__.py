"""What the scripts share: running chessvar and reading its JSON (chessvar_run), the
machine and commit a measurement ran on (measure_env), a UCI client for other engines
(uci_engine), and running again under the system interpreter when a module is missing
(system_python). ROOT is the repository root."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

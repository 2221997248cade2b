"""Keep the machine's 1-minute load average around TARGET (default 8) by adding busy processes
when it is below TARGET - 0.5 and stopping one when it is above TARGET + 0.5, every 15 s; each
sample is appended to LOG. Issue 29's load test: the suite must pass beside it.

    python bench/load/burner.py [TARGET] [LOG]   (stop it with kill)
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import time


def spin() -> None:
    while True:
        pass


def main() -> None:
    target = float(sys.argv[1]) if len(sys.argv) > 1 else 8.0
    log_path = sys.argv[2] if len(sys.argv) > 2 else "load.log"
    workers: list[mp.Process] = []
    with open(log_path, "a", encoding="utf-8") as log:
        while True:
            load = os.getloadavg()[0]
            if load < target - 0.5 and len(workers) < 12:
                worker = mp.Process(target=spin, daemon=True)
                worker.start()
                workers.append(worker)
            elif load > target + 0.5 and workers:
                workers.pop().terminate()
            log.write(f"{time.strftime('%H:%M:%S')} load={load:.2f} burners={len(workers)}\n")
            log.flush()
            time.sleep(15)


if __name__ == "__main__":
    main()

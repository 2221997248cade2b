"""Benchmark: what reading notebooks costs, and what it costs a plain `.py` job (nothing).

Usage: python bench/bench_notebook.py [--cells 100] [--runs 20]

Builds a Jupyter notebook of CELLS code cells (a markdown cell between each; every fifth code
cell starts a streaming aggregation, the others set constants, define helpers or run magics)
and the same code as a `.py` file, then times in this process, warm, the median of RUNS:
the notebook front end alone (JSON with positions, nbformat's validation, cells to Python),
extracting the notebook, and extracting the `.py`. In fresh processes it reports which
modules a `.py` extraction imports that a notebook's does not need (none may be notebook
ones), and the import time nbformat adds for a notebook (`python -X importtime`).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def cells(count: int) -> list[str]:
    out = []
    for n in range(count):
        if n % 5 == 0:
            out.append(f'df{n} = (spark.readStream.format("kafka")\n'
                       f'    .option("subscribe", "topic_{n}").load())\n'
                       f'q{n} = (df{n}.withWatermark("timestamp", "10 minutes")\n'
                       f'    .groupBy(F.window("timestamp", "5 minutes"), "key").count()\n'
                       f'    .writeStream.outputMode("update")\n'
                       f'    .option("checkpointLocation", ROOT + "/q{n}").start())')
        elif n % 5 == 1:
            out.append(f"%pip install package{n}\n!ls /tmp\nLIMIT_{n} = {n} * 2")
        elif n % 5 == 2:
            out.append(f"def helper_{n}(df):\n    return df.filter(F.col('x') > {n})")
        else:
            out.append(f"import pyspark.sql.functions as F\nROOT = '/chk/v{n}'")
    return out


def median_ms(function, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cells", type=int, default=100)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    sys.path.insert(0, str(SRC))
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    from streamlint.extract import extract_text
    from streamlint.extract.notebook import convert

    sources = cells(args.cells)
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3"}
    for n, source in enumerate(sources):
        nb.cells += [new_markdown_cell(f"## step {n}"), new_code_cell(source)]
    notebook = nbformat.writes(nb)
    python = "\n".join(s.replace("%pip", "# %pip").replace("!ls", "# !ls") for s in sources)
    with tempfile.TemporaryDirectory() as tmp:
        nb_path, py_path = Path(tmp, "job.ipynb"), Path(tmp, "job.py")
        nb_path.write_text(notebook)
        py_path.write_text(python)
        queries = len(extract_text(notebook, str(nb_path)).queries)
        print(f"notebook: {args.cells} code cells, {len(nb.cells)} cells, "
              f"{len(notebook) // 1024} KB, {queries} queries")
        print(f"  front end (JSON, validation, cells): "
              f"{median_ms(lambda: convert(notebook, str(nb_path)), args.runs):.1f} ms")
        print(f"  extract the notebook:                "
              f"{median_ms(lambda: extract_text(notebook, str(nb_path)), args.runs):.1f} ms")
        print(f"  extract the same code as a .py:      "
              f"{median_ms(lambda: extract_text(python, str(py_path)), args.runs):.1f} ms")
        probe = ("import sys; from streamlint.extract import extract_file; extract_file({!r}); "
                 "print(sorted(m for m in sys.modules if 'nbformat' in m or 'notebook' in m"
                 " or 'jsonschema' in m))")
        for label, path in ((".py", py_path), (".ipynb", nb_path)):
            done = subprocess.run([sys.executable, "-c", probe.format(str(path))],
                                  capture_output=True, text=True, check=True,
                                  env={"PYTHONPATH": str(SRC)})
            names = eval(done.stdout)  # noqa: S307 - our own probe's printed list
            print(f"  {label}: {len(names)} notebook/nbformat modules imported"
                  + (f" ({', '.join(n for n in names if '.' not in n)})" if names else ""))
        timing = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import nbformat"],
            capture_output=True, text=True, check=True)
        last = timing.stderr.strip().splitlines()[-1]
        cumulative = int(last.split("|")[1])
        print(f"  import nbformat (python -X importtime, cumulative): {cumulative / 1000:.0f} ms")


if __name__ == "__main__":
    main()

"""Run in a fresh process by tests/test_confirm_network.py: start a JVM and try to connect to
HOST:PORT the ways a job's code could (a URL, a plain socket, SparkContext.addFile).

`guarded` starts streamlint's confirmation session; `plain` a bare local session, the control
that shows the probes do connect when nothing stops them."""

from __future__ import annotations

import sys


def main() -> int:
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "guarded":
        from streamlint.spark.runtime import start_session

        session = start_session()
    else:
        from pyspark.sql import SparkSession

        session = (SparkSession.builder.master("local[1]")
                   .config("spark.ui.enabled", "false").getOrCreate())
    jvm = session._jvm
    probes = {
        "url": lambda: jvm.java.net.URL(f"http://{host}:{port}/lookup.csv").openStream(),
        "socket": lambda: jvm.java.net.Socket(host, port),
        "addFile": lambda: session.sparkContext.addFile(f"http://{host}:{port}/f.txt"),
    }
    for name, probe in probes.items():
        try:
            probe()
            print(f"{name}: no error")
        except Exception as err:  # noqa: BLE001 - the error is what is reported
            print(f"{name}: {' '.join(str(err).split())[:300]}")
    session.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

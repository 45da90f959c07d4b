"""Many runs on a Dask cluster: --scheduler, the TLS files and --lost-after (docs/many-runs.md)."""

from __future__ import annotations

import argparse
import os


def add_cluster(parser: argparse.ArgumentParser) -> None:
    cluster = parser.add_argument_group("many runs on a Dask cluster (pip install \"opdiff[cluster]\")")
    cluster.add_argument("--scheduler", metavar="ADDRESS", default=os.environ.get("OPDIFF_SCHEDULER"),
                         help="run on this Dask scheduler (tls://host:8786; default: $OPDIFF_SCHEDULER); "
                         "-m and -g are then paths as the workers see them")
    cluster.add_argument("--tls-ca-file", metavar="PEM", help="the CA that signed the cluster's certificates")
    cluster.add_argument("--tls-cert", metavar="PEM", help="this client's certificate (default: Dask's configuration)")
    cluster.add_argument("--tls-key", metavar="PEM", help="this client's private key")
    cluster.add_argument("--lost-after", metavar="SECONDS", type=float, default=10.0,
                         help="report a run as not compared when no worker that sees its files has been alive for "
                         "this long, and the cluster as lost when the scheduler has been out of reach as long (default 10)")

"""What ``opdiff view OUTDIR`` shows and the Model Explorer server that shows it: the node-data files
of OUTDIR (``--report model-explorer``), the model (``--model``, or the rule the newest record names),
served on 127.0.0.1 unless another host is asked for."""

from __future__ import annotations

import ipaddress
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from opdiff.report.model_explorer.node_data import NODE_DATA_SUFFIX, SIDECAR_SUFFIX
from opdiff.viewer import ADAPTER_ID, EXTENSION_MODULE

INSTALL_HINT = ('opdiff view needs Model Explorer: pip install "opdiff[view]" (ai-edge-model-explorer; '
                "its adapter wheel is built for x86-64 only)")
ONNX_EXTENSION = "model_explorer_onnx"  # model-explorer-onnx: Model Explorer's ONNX adapter
ONNX_ADAPTER_ID = "onnx_adapter"  # its adapter's id (named, since its file extensions overlap opdiff's: json)


@dataclass
class ViewFiles:
    """The node-data files of an output folder and the rule recorded beside them."""

    node_data: List[Path]
    rule: Optional[Path] = None
    notes: List[str] = field(default_factory=list)


def node_data_name(path: Path) -> str:
    """The name Model Explorer lists a node-data file by: its file name without the suffix.

    >>> node_data_name(Path("out/result_20260101120000.cosine.node_data.json"))
    'result_20260101120000.cosine'
    """
    return path.name[: -len(NODE_DATA_SUFFIX)]


def find_view_files(folder: Path) -> ViewFiles:
    """Every node-data file of `folder`, by name, and the rule of the newest record there (result
    names sort by time); ValueError when the folder has no node data."""
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a folder")
    found = ViewFiles(sorted(folder.glob(f"*{NODE_DATA_SUFFIX}")))
    if not found.node_data:
        raise ValueError(f"{folder}: no Model Explorer node data (*{NODE_DATA_SUFFIX}); "
                         "write it with opdiff compare --report model-explorer -out FOLDER")
    rules = []
    for record in sorted(folder.glob(f"*{SIDECAR_SUFFIX}")):
        try:
            rule = json.loads(record.read_text(encoding="utf-8")).get("rule")
        except (OSError, ValueError, AttributeError) as error:
            raise ValueError(f"{record}: not a record of opdiff compare --report model-explorer ({error})") from None
        if rule:
            rules.append(Path(rule))
    if rules:
        found.rule = rules[-1]
        if len(set(rules)) > 1:
            found.notes.append(f"the results of {folder} used {len(set(rules))} rules; showing the newest, {found.rule}")
    return found


def is_loopback(host: str) -> bool:
    """True for a name or address that only this machine reaches.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(model: Path, node_data: Sequence[Path], *, host: str, port: int, open_browser: bool) -> None:
    """Start Model Explorer with `model` and `node_data` loaded, until Ctrl-C (Model Explorer prints the
    URL once it answers). An .onnx model goes to model-explorer-onnx, anything else to opdiff's adapter.
    Model Explorer runs in a thread of its own, see `_serve_until_interrupted`."""
    import model_explorer
    from model_explorer import server

    config = model_explorer.config()
    extensions = [EXTENSION_MODULE]
    if model.suffix.lower() == ".onnx":
        extensions.append(ONNX_EXTENSION)
        config.add_model_from_path(str(model), adapterId=ONNX_ADAPTER_ID)
    else:
        config.add_model_from_path(str(model), adapterId=ADAPTER_ID)
    for path in node_data:
        # handed over as text, so the server serves it as its own (load_node_data), not by path
        config.add_node_data(name=node_data_name(path), node_data=path.read_text(encoding="utf-8"))
    _serve_until_interrupted(lambda: server.start(host=host, port=port, config=config,
                                                  no_open_in_browser=not open_browser, extensions=extensions))


def _serve_until_interrupted(start: Callable[[], None]) -> None:
    """Run Model Explorer's `start` in a daemon thread, so every thread it makes is a daemon too, and
    wait here for Ctrl-C. On the main thread, its start-up loop (a bare ``except`` around its health
    check) swallows a Ctrl-C, and its PyPI version check (a thread with no time-out) holds the exit
    for minutes where that address hangs (a proxy, a firewall that drops). Lost: its clean-up of
    models uploaded through the page, whose temporary folders stay (docs/model-explorer.md)."""
    ended: List[BaseException] = []

    def run() -> None:
        try:
            start()
        except BaseException as error:  # SystemExit too: a port in use ends start() with sys.exit(1)
            ended.append(error)

    thread = threading.Thread(target=run, name="model-explorer", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.5)
    except KeyboardInterrupt:
        print("opdiff view: stopped (Ctrl+C)", flush=True)
        return
    if ended:
        raise ended[0]

"""ONNX Runtime sessions for isolated subgraphs, one per subgraph signature: the ops of a network
that share a structure (every 3x3 Conv + Relu of a stage, every Add) share one session, their
weights fed as inputs. Graph optimisation is off: the local golden runs the model's ops as written."""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Sequence, Union

import numpy as np

from opdiff.isolate.subgraph import NotIsolated
from opdiff.producers.onnx.runner import Optimization, session_options
from opdiff.producers.onnx.support import OnnxModel


class SessionCache:
    """Sessions by signature; a subgraph ONNX Runtime refused is remembered with its reason."""

    def __init__(self, threads: int = 0) -> None:
        self.threads = threads
        self._sessions: Dict[str, Union[Any, str]] = {}
        self.built = 0

    def run(self, signature: str, build: Callable[[], OnnxModel], feeds: Mapping[str, np.ndarray]) -> Sequence[np.ndarray]:
        """The outputs of the subgraph of `signature` (built by `build` on first use) for `feeds`;
        NotIsolated when ONNX Runtime refuses the subgraph or fails to run it."""
        import onnxruntime as ort

        session = self._sessions.get(signature)
        if session is None:
            try:
                session = ort.InferenceSession(build().SerializeToString(), self._options(), providers=["CPUExecutionProvider"])
            except Exception as error:  # ONNX Runtime raises its own types for graphs it cannot load
                session = f"ONNX Runtime refuses the subgraph: {_first_line(error)}"
            self._sessions[signature] = session
            self.built += 1
        if isinstance(session, str):
            raise NotIsolated(session)
        try:
            return [np.asarray(value) for value in session.run(None, dict(feeds))]
        except Exception as error:  # shapes or types the session cannot take
            raise NotIsolated(f"ONNX Runtime refuses the subgraph's inputs: {_first_line(error)}") from None

    @property
    def count(self) -> int:
        return len(self._sessions)

    def _options(self) -> Any:
        options = session_options(Optimization.OFF, threads=self.threads)
        # Each run is short and Python work follows it: pool threads that spin-wait for more work
        # after a run take the cores that work needs (resnet50's 90 ops on 2 busy cores: 1.8 s
        # spinning, 0.3 s not). Spinning changes no result.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return options


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:300] if text else type(error).__name__

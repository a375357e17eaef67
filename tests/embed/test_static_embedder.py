"""The shipped static embedder: offline load, shape, normalisation, determinism, meaning."""

from __future__ import annotations

import asyncio
import random
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from sedimem.embed import Embedder, StaticEmbedder, default_embedder
from sedimem.embed.static import DEFAULT_MODEL_DIR
from sedimem.errors import ConfigurationError, ValidationError

NAME = "sedimem/minilm-l6-static-v1"


@pytest.fixture(scope="module")
def embedder() -> StaticEmbedder:
    return default_embedder()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


def test_identity_and_protocol(embedder: StaticEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.name == NAME
    assert embedder.dimension == 384
    assert default_embedder() is embedder


def test_loads_and_embeds_with_the_network_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the static embedder tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    fresh = StaticEmbedder()
    fresh.load()
    vectors = fresh.embed(["offline works"])
    assert vectors.shape == (1, 384)


def test_does_not_import_torch_or_model2vec() -> None:
    code = (
        "import sys\n"
        "from sedimem.embed import default_embedder\n"
        "default_embedder().embed(['hello there'])\n"
        "print(sorted(m for m in ('torch', 'model2vec', 'transformers') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == "[]"


def test_shape_dtype_and_unit_rows(embedder: StaticEmbedder) -> None:
    texts = ["Caroline went to a support group.", "Melanie painted a sunrise", "ok"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    assert vectors.flags.c_contiguous
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_input_and_texts_with_no_known_token(embedder: StaticEmbedder) -> None:
    assert embedder.embed([]).shape == (0, 384)
    assert embedder.embed(()).dtype == np.float32
    vectors = embedder.embed(["", "   \n\t", "x" * 150, "real words"])
    assert not vectors[:3].any()  # nothing the model knows: the zero row
    assert np.linalg.norm(vectors[3]) == pytest.approx(1.0, abs=1e-5)


def test_rejects_bad_input(embedder: StaticEmbedder) -> None:
    with pytest.raises(ValidationError) as info:
        embedder.embed(["fine", 3])  # type: ignore[list-item]
    assert info.value.field == "texts.1"
    with pytest.raises(ValidationError) as info:
        embedder.embed("a bare string")
    assert info.value.field == "texts"
    with pytest.raises(ValidationError):
        embedder.embed(None)  # type: ignore[arg-type]


def test_deterministic_across_calls_instances_and_batching(embedder: StaticEmbedder) -> None:
    texts = [f"turn {i}: we talked about hiking and the kids' school play" for i in range(50)]
    texts += ["", "A single short one."]
    first = embedder.embed(texts)
    again = embedder.embed(texts)
    other = StaticEmbedder().embed(texts)
    one_by_one = np.vstack([embedder.embed([text]) for text in texts])
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first, other)
    np.testing.assert_allclose(first, one_by_one, atol=1e-6)


def test_similar_sentences_score_higher_than_unrelated(embedder: StaticEmbedder) -> None:
    cases = [
        ("A man is eating food.", "A man is eating a piece of bread.", "The stock market fell."),
        (
            "When did Caroline go to the LGBTQ support group?",
            "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
            "Melanie: The kids loved the camping trip by the lake.",
        ),
        (
            "How do I reset my password?",
            "Steps to change a forgotten login password",
            "Pasta recipe",
        ),
        (
            "The cat sleeps on the sofa.",
            "A kitten is napping on the couch.",
            "Quarterly tax filing.",
        ),
    ]
    for query, similar, unrelated in cases:
        q, s, u = embedder.embed([query, similar, unrelated])
        assert cosine(q, s) > cosine(q, u) + 0.05, (query, cosine(q, s), cosine(q, u))


def test_ranking_finds_the_matching_memory(embedder: StaticEmbedder) -> None:
    memories = [
        "Jon opened a dance studio downtown last spring.",
        "Gina lost her job at the bank and started an online clothing store.",
        "Audrey adopted two dogs from the animal shelter.",
        "Tim is reading a fantasy series about dragons.",
    ]
    queries = {
        "Which pets did Audrey get?": 2,
        "What business did Gina start after losing her job?": 1,
        "What books does Tim like?": 3,
        "Where did Jon open his studio?": 0,
    }
    matrix = embedder.embed(memories)
    for query, expected in queries.items():
        scores = matrix @ embedder.embed([query])[0]
        assert int(np.argmax(scores)) == expected, query


TRICKY = [
    "naïve café — résumé!!",
    "Ünïcödé ÀÉÎÕÜ çà et là",
    "中文字符 mixed with 日本語 and 한국어",
    "emoji 🙂🙃 and symbols $5 + 3 = <8> | ~ ^ `",
    "tabs\tand\nnewlines\r\nand\u00a0nbsp\u2028line\u3000ideographic",
    "form\x0cfeed vertical\x0btab file\x1csep nel\x85here",
    "zero\u200bwidth soft\u00adhyphen nul\x00byte replacement\ufffdchar",
    "[UNK] [PAD] literal[PAD]special [CLS] tokens",
    "don't won't y'all e.g. i.e. U.S.A. 3.14159 1,000,000",
    "supercalifragilisticexpialidocious " + "a" * 99 + " " + "b" * 101,
    "combining e\u0301 accents and \u0301 alone",
    "\uff26\uff35\uff2c\uff2c fullwidth letters and \ufb01 ligature",
]


def random_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = (
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789 .,!?'\"-()[]{}#@&*/\\"
        "éèüßñçøåÉ\u0301\u0300中文日本語한국🙂\t\n\x0b\x0c\x1c\x1d\x1e\x1f\x85\u00a0\u2028\u2029"
        "\u3000\u200b\u00ad\x00\ufffd\u180e\u2000\u202f"
    )
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80))) for _ in range(count)]


def test_chunk_cache_gives_the_same_vectors_as_whole_text_tokenization(
    embedder: StaticEmbedder,
) -> None:
    whole = StaticEmbedder(word_cache=False)
    texts = TRICKY + random_texts(seed=1, count=400)
    np.testing.assert_allclose(embedder.embed(texts), whole.embed(texts), atol=1e-6)


def test_a_tiny_cache_changes_nothing(embedder: StaticEmbedder) -> None:
    texts = TRICKY + random_texts(seed=2, count=100)
    tiny = StaticEmbedder(cache_size=1)
    np.testing.assert_allclose(tiny.embed(texts), embedder.embed(texts), atol=1e-6)
    np.testing.assert_allclose(tiny.embed(texts), embedder.embed(texts), atol=1e-6)


def test_max_tokens_caps_the_pooled_tokens(embedder: StaticEmbedder) -> None:
    long_text = "cat " * 512 + "dog " * 300
    capped, head = embedder.embed([long_text, "cat " * 512])
    np.testing.assert_allclose(capped, head, atol=1e-6)
    uncapped = StaticEmbedder(max_tokens=None).embed([long_text])[0]
    assert cosine(uncapped, head) < 0.999
    short = StaticEmbedder(max_tokens=2).embed(["cat cat dog dog", "cat cat"])
    np.testing.assert_allclose(short[0], short[1], atol=1e-6)
    with pytest.raises(ValidationError):
        StaticEmbedder(max_tokens=0)


def test_threads_share_one_instance_safely() -> None:
    shared = StaticEmbedder()
    texts = random_texts(seed=3, count=300)
    expected = StaticEmbedder(word_cache=False).embed(texts)
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(shared.embed(texts))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for result in results:
        np.testing.assert_allclose(result, expected, atol=1e-6)


async def test_aembed_matches_embed(embedder: StaticEmbedder) -> None:
    small = ["one query"]
    large = [f"memory number {i} about gardening" for i in range(100)]
    np.testing.assert_array_equal(await embedder.aembed(small), embedder.embed(small))
    np.testing.assert_array_equal(await embedder.aembed(large), embedder.embed(large))
    both = await asyncio.gather(embedder.aembed(large), embedder.aembed(small))
    assert both[0].shape == (100, 384)
    with pytest.raises(ValidationError):
        await embedder.aembed([b"bytes"])  # type: ignore[list-item]


def test_missing_or_broken_model_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no static embedder model"):
        StaticEmbedder(tmp_path / "nowhere")
    (tmp_path / "config.json").write_text('{"hidden_dim": 384}')
    broken = StaticEmbedder(tmp_path, name="test/broken")
    assert broken.name == "test/broken"
    with pytest.raises(ConfigurationError, match="cannot load"):
        broken.embed(["needs weights"])
    (tmp_path / "config.json").write_text("[1, 2]")
    with pytest.raises(ConfigurationError):
        StaticEmbedder(tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ConfigurationError):
        StaticEmbedder(tmp_path)
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ConfigurationError, match="hidden_dim"):
        StaticEmbedder(tmp_path)


def test_a_copy_of_the_model_loads_from_another_path(tmp_path: Path) -> None:
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        (tmp_path / name).write_bytes((DEFAULT_MODEL_DIR / name).read_bytes())
    copy = StaticEmbedder(tmp_path)
    assert copy.name == NAME
    texts = ["a copied model gives the same vectors"]
    np.testing.assert_array_equal(copy.embed(texts), default_embedder().embed(texts))


def test_a_table_that_does_not_fit_the_config_is_refused(tmp_path: Path) -> None:
    for name in ("model.safetensors", "tokenizer.json"):
        (tmp_path / name).write_bytes((DEFAULT_MODEL_DIR / name).read_bytes())
    (tmp_path / "config.json").write_text('{"hidden_dim": 256}')
    with pytest.raises(ConfigurationError, match="does not fit"):
        StaticEmbedder(tmp_path).embed(["x"])


def test_a_vocabulary_quantised_model2vec_layout_loads(tmp_path: Path) -> None:
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer

    (tmp_path / "tokenizer.json").write_bytes((DEFAULT_MODEL_DIR / "tokenizer.json").read_bytes())
    (tmp_path / "config.json").write_text('{"hidden_dim": 4}')
    vocab = 29525
    rng = np.random.default_rng(0)
    clusters = rng.normal(size=(16, 4)).astype(np.float32)
    mapping = (np.arange(vocab) % 16).astype(np.int64)
    weights = rng.uniform(0.5, 1.5, size=vocab).astype(np.float32)
    save_file(
        {"embeddings": clusters, "mapping": mapping, "weights": weights},
        str(tmp_path / "model.safetensors"),
    )
    embedder = StaticEmbedder(tmp_path)
    assert embedder.name == f"model2vec/{tmp_path.name}"
    tokenizer = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    ids = tokenizer.encode("hello world", add_special_tokens=False).ids
    manual = (clusters[mapping[ids]] * weights[ids, None]).sum(axis=0)
    np.testing.assert_allclose(
        embedder.embed(["hello world"])[0], manual / np.linalg.norm(manual), atol=1e-6
    )
    save_file({"vectors": clusters}, str(tmp_path / "model.safetensors"))
    with pytest.raises(ConfigurationError, match="'embeddings'"):
        StaticEmbedder(tmp_path).embed(["x"])

"""Embedder speed: batch throughput and single-query latency, of the default static model or
(``--embedder minilm``) the quality embedder, all-MiniLM-L6-v2 on onnxruntime.

Sentences are generated to look like LoCoMo turns ("Name: I went hiking with the kids last
weekend...") from fixed word lists plus made-up names and places, so a run has a realistic
share of words never seen before. Nothing is read from disk but the shipped model.

- cold: a fresh ``StaticEmbedder`` embeds the corpus in batches of ``--batch`` (the word cache
  fills as it goes, as during a first ingest);
- warm: the same corpus again on the same instance (steady state);
- whole-text: the tokenizer on whole texts (``word_cache=False``), the path without the cache;
- query: ``embed([question])`` one at a time, questions with unseen words mixed in;
- model2vec (when installed: a dev dependency): the library's own ``StaticModel.encode`` of
  the same weights on the same corpus, its throughput and the cosine of its vectors to ours.

For ``minilm`` there is no whole-text or model2vec row (its tokenizer always runs on whole
texts), the default corpus is smaller (a transformer embeds ~100x fewer sentences per second)
and ``--threads`` sets onnxruntime's intra-op threads.

    python -m benchmarks.embedder [--embedder default|minilm] [--threads 1]
        [--sentences 20000] [--queries 2000] [--batch 1024]

The last line printed is a JSON object ``{"metrics": {...}}``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Sequence

from sedimem.embed.base import Embedder
from sedimem.embed.static import StaticEmbedder

NAMES = ["Caroline", "Melanie", "Jon", "Gina", "John", "Maria", "Joanna", "Nate", "Tim", "Audrey"]
OPENERS = ["Hey", "Wow", "Thanks", "Oh", "Yeah", "Hi", "Haha", "Sure", "Totally", "Aww"]
VERBS = [
    "went to",
    "signed up for",
    "finished",
    "started",
    "talked about",
    "painted",
    "visited",
    "cooked for",
    "read about",
    "volunteered at",
]
THINGS = [
    "a pottery class",
    "the support group",
    "a charity race",
    "my new job",
    "the dance studio",
    "an art show",
    "a camping trip",
    "the adoption agency",
    "my sister's wedding",
    "a book club",
    "the animal shelter",
    "a road trip",
]
TIMES = ["yesterday", "last weekend", "last month", "this morning", "two weeks ago", "in May"]
FEELINGS = [
    "and it was so powerful",
    "and honestly I loved every minute",
    "which was a bit stressful",
    "and the kids had a blast",
    "and I learned so much about myself",
    "so I'm feeling really inspired",
]
QUESTIONS = [
    "When did {n} go to {t}?",
    "What did {n} think about {t}?",
    "Where did {n} go {w}?",
    "Why did {n} start {t}?",
    "Who did {n} meet at {p}?",
]


def made_up(rng: random.Random) -> str:
    syllables = ["ka", "lo", "ri", "ven", "sa", "mor", "te", "qu", "zel", "ani", "bro", "dun"]
    return "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))).capitalize()


def sentences(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = (
            f"{rng.choice(NAMES)}: {rng.choice(OPENERS)} {rng.choice(NAMES)}! I "
            f"{rng.choice(VERBS)} {rng.choice(THINGS)} {rng.choice(TIMES)}"
        )
        if rng.random() < 0.4:
            text += f" in {made_up(rng)}"
        text += f", {rng.choice(FEELINGS)}."
        if rng.random() < 0.3:
            text += f" Have you ever tried {rng.choice(THINGS)}?"
        out.append(text)
    return out


def questions(count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [
        rng.choice(QUESTIONS).format(
            n=rng.choice(NAMES), t=rng.choice(THINGS), w=rng.choice(TIMES), p=made_up(rng)
        )
        for _ in range(count)
    ]


def throughput(embedder: Embedder, texts: Sequence[str], batch: int) -> float:
    begin = time.perf_counter()
    for start in range(0, len(texts), batch):
        embedder.embed(texts[start : start + batch])
    return len(texts) / (time.perf_counter() - begin)


def latencies(embedder: Embedder, texts: Sequence[str]) -> dict[str, float]:
    clock = time.perf_counter_ns
    samples = []
    for text in texts:
        begin = clock()
        embedder.embed([text])
        samples.append(clock() - begin)
    cuts = statistics.quantiles(sorted(samples), n=100, method="inclusive")
    return {"p50_us": cuts[49] / 1000, "p95_us": cuts[94] / 1000, "p99_us": cuts[98] / 1000}


def model2vec_reference(
    embedder: StaticEmbedder, texts: Sequence[str], batch: int
) -> dict[str, float]:
    """model2vec's inference of the same weights: speed, and agreement with ours."""
    try:
        from model2vec import StaticModel
    except ImportError:
        return {}
    import numpy as np

    model = StaticModel.from_pretrained(str(embedder.path))
    model.encode(list(texts[:batch]), use_multiprocessing=False)  # warm-up
    begin = time.perf_counter()
    theirs = np.concatenate(
        [
            np.asarray(model.encode(list(texts[i : i + batch]), use_multiprocessing=False))
            for i in range(0, len(texts), batch)
        ]
    ).astype(np.float32)
    rate = len(texts) / (time.perf_counter() - begin)
    theirs /= np.linalg.norm(theirs, axis=1, keepdims=True)
    cosines = np.sum(embedder.embed(list(texts)) * theirs, axis=1)
    return {"model2vec.sentences_per_s": round(rate), "model2vec.cosine_min": float(cosines.min())}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--embedder", choices=["default", "minilm"], default="default")
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime threads (minilm)")
    parser.add_argument("--sentences", type=int, default=None, help="20000 (minilm: 2000)")
    parser.add_argument("--queries", type=int, default=None, help="2000 (minilm: 300)")
    parser.add_argument("--batch", type=int, default=1024)
    args = parser.parse_args(argv)
    quality = args.embedder == "minilm"
    count = args.sentences or (2_000 if quality else 20_000)
    corpus = sentences(count)
    asks = questions(args.queries or (300 if quality else 2_000))

    begin = time.perf_counter()
    embedder: Embedder
    if quality:
        from sedimem.embed.minilm import OnnxMiniLMEmbedder

        embedder = minilm = OnnxMiniLMEmbedder(threads=args.threads)
        minilm.load()
    else:
        embedder = static = StaticEmbedder()
        static.load()
    load_s = time.perf_counter() - begin
    cold = throughput(embedder, corpus, args.batch)
    warm = throughput(embedder, corpus, args.batch)
    whole = 0.0
    if not quality:
        whole = throughput(StaticEmbedder(word_cache=False), corpus[: max(1, count // 4)], 1024)
    latencies(embedder, asks[: len(asks) // 10])  # warm-up: caches, allocator
    query = latencies(embedder, asks)

    print(f"embedder {embedder.name} (dimension {embedder.dimension}), load {load_s * 1000:.0f} ms")
    print(f"{'measure':<32}{'value':>12}")
    rows = [
        (f"batch cold, sentences/s (b={args.batch})", f"{cold:,.0f}"),
        ("batch warm, sentences/s", f"{warm:,.0f}"),
    ]
    if not quality:
        rows.append(("whole-text tokenizer, sentences/s", f"{whole:,.0f}"))
    rows += [
        ("single query p50 (us)", f"{query['p50_us']:.1f}"),
        ("single query p95 (us)", f"{query['p95_us']:.1f}"),
        ("single query p99 (us)", f"{query['p99_us']:.1f}"),
    ]
    reference = {} if quality else model2vec_reference(static, corpus, args.batch)
    if reference:
        rows += [
            ("model2vec encode, sentences/s", f"{reference['model2vec.sentences_per_s']:,.0f}"),
            ("cosine to model2vec, min", f"{reference['model2vec.cosine_min']:.7f}"),
        ]
    for label, value in rows:
        print(f"{label:<32}{value:>12}")
    metrics = {
        "embedder.sentences_per_s": round(cold),
        "embedder.sentences_per_s_warm": round(warm),
        "embedder.query.p50_us": round(query["p50_us"], 1),
        "embedder.query.p95_us": round(query["p95_us"], 1),
        "embedder.query.p99_us": round(query["p99_us"], 1),
        "embedder.load_ms": round(load_s * 1000),
        **reference,
    }
    if not quality:
        metrics["embedder.sentences_per_s_whole_text"] = round(whole)
    print(json.dumps({"embedder": embedder.name, "metrics": metrics}))


if __name__ == "__main__":
    main()

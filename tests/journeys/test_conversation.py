"""A LoCoMo conversation told to a real ``sedimem serve`` through ``POST /v1/messages``:
three sessions in, a question about session 1 answered by the assembled context, and the
same messages posted again change no count.

The conversation is read from ``shared/data/locomo10.json`` at run time (never committed);
the test is skipped with a reason when the file is absent.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from sedimem.evaluation.locomo import session_date
from sedimem.testing.sedimem_server import SedimemServer

# ../shared/data beside the checkout (a worktree may sit one level deeper)
LOCOMO = next(
    (
        p / "shared" / "data" / "locomo10.json"
        for p in Path(__file__).resolve().parents[2].parents
        if (p / "shared" / "data" / "locomo10.json").exists()
    ),
    None,
)
SESSIONS = 3


def messages_of(conversation: dict[str, Any], n: int) -> list[dict[str, str]]:
    """Session ``n`` as chat turns: speaker A is the user, speaker B the assistant."""
    start = session_date(conversation[f"session_{n}_date_time"])
    return [
        {
            "id": turn["dia_id"],
            "role": "user" if turn["speaker"] == conversation["speaker_a"] else "assistant",
            "name": turn["speaker"],
            "content": turn["text"],
            "timestamp": (start + timedelta(seconds=30 * index)).isoformat(),
        }
        for index, turn in enumerate(conversation[f"session_{n}"])
    ]


def session_one_question(sample: dict[str, Any]) -> tuple[str, list[str]]:
    """The first question whose evidence is all in session 1, with the evidence turns."""
    turns = {t["dia_id"]: t["text"] for t in sample["conversation"]["session_1"]}
    for qa in sample["qa"]:
        evidence = qa.get("evidence", [])
        if evidence and all(e in turns for e in evidence):
            return qa["question"], [turns[e] for e in evidence]
    raise AssertionError("LoCoMo's first conversation has no session-1 question")


@pytest.mark.slow
@pytest.mark.skipif(LOCOMO is None, reason="LoCoMo (shared/data/locomo10.json) is not here")
def test_a_locomo_conversation_through_messages() -> None:
    assert LOCOMO is not None
    sample = json.loads(LOCOMO.read_text())[0]
    conversation = sample["conversation"]
    question, evidence = session_one_question(sample)
    owner = {"user": "locomo-a", "agent_type": "companion"}
    with SedimemServer() as server:
        key = server.printed_key
        assert key is not None
        headers = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=server.url, headers=headers, timeout=120) as client:

            def post_all() -> list[dict[str, Any]]:
                answers = []
                for n in range(1, SESSIONS + 1):
                    body = {**owner, "session": f"s{n}", "messages": messages_of(conversation, n)}
                    response = client.post("/v1/messages", json=body)
                    assert response.status_code == 200, response.text
                    answers.append(response.json())
                return answers

            first = post_all()
            turns = sum(len(conversation[f"session_{n}"]) for n in range(1, SESSIONS + 1))
            assert sum(len(a["stored"]) for a in first) == turns
            assert all(a["status"] == "done" for a in first)
            learned = sum(len(a["inserted"]) + len(a["reinforced"]) for a in first)
            assert learned > 0

            context = client.post(
                "/v1/context",
                json={"query": question, "budget_tokens": 1500, **owner, "session": "s4"},
            )
            assert context.status_code == 200, context.text
            text = context.json()["text"]
            # the fact stated in session 1, as the turn said it or as a fact learned from it
            assert any(turn in text for turn in evidence), (question, evidence, text)

            stats = client.get("/v1/stats", params=owner).json()
            again = post_all()
            assert sum(len(a["duplicates"]) for a in again) == turns
            assert all(a["stored"] == a["inserted"] == a["reinforced"] == [] for a in again)
            assert client.get("/v1/stats", params=owner).json() == stats


@pytest.mark.slow
@pytest.mark.postgres
def test_two_servers_file_a_turn_once(postgres_url: str) -> None:
    """The same turns posted at once to two processes on one store are filed once."""
    admin = "admin-secret-for-two-servers"
    env = {
        "SEDIMEM_ADMIN_KEY": admin,
        "SEDIMEM_STORE_URL": postgres_url,
        "SEDIMEM_WORKING_URL": "memory://",
    }
    turns = [
        {"role": "user", "name": "Ana", "content": f"I live in city {n}.",
         "timestamp": f"2024-05-01T09:00:{n:02d}+00:00"}
        for n in range(20)
    ]  # fmt: skip
    with SedimemServer(env=env) as one, SedimemServer(env=env) as two:
        with httpx.Client(
            base_url=one.url, headers={"Authorization": f"Bearer {admin}"}, timeout=60
        ) as c:
            created = c.post("/v1/keys", json={"tenant": "acme"})
            assert created.status_code == 201, created.text
            headers = {"Authorization": f"Bearer {created.json()['secret']}"}

        def post(server: SedimemServer) -> dict[str, Any]:
            with httpx.Client(base_url=server.url, headers=headers, timeout=120) as client:
                response = client.post("/v1/messages", json={"user": "ana", "messages": turns})
                assert response.status_code == 200, response.text
                answer: dict[str, Any] = response.json()
                return answer

        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(post, [one, two]))
        assert sum(len(a["stored"]) for a in answers) == len(turns)
        assert sum(len(a["duplicates"]) for a in answers) == len(turns)
        with httpx.Client(base_url=two.url, headers=headers, timeout=60) as client:
            stats = client.get("/v1/stats", params={"user": "ana"}).json()
            assert stats["episodes"] == len(turns)
            # the city is single-valued: one current value, the last one said
            now = client.get(
                "/v1/facts", params={"subject": "Ana", "predicate": "lives_in", "user": "ana"}
            ).json()["items"]
            assert [f["object"] for f in now] == ["city 19"]

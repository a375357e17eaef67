"""LoCoMo as a user/assistant chat (`sedimem eval context --chat`)."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sedimem.cli import app
from sedimem.errors import ValidationError
from sedimem.evaluation.chat import as_chat, ask_as_user
from sedimem.evaluation.context import Dialogue, Probe, Turn, load_dialogues
from tests.evaluation.test_context import dataset

AT = datetime(2023, 5, 8, tzinfo=UTC)


def dialogue(index: int, *texts: tuple[str, str], probes: list[Probe] | None = None) -> Dialogue:
    turns = [Turn(f"D1:{i}", who, text, AT, 1) for i, (who, text) in enumerate(texts)]
    return Dialogue(index, f"conv-{index}", turns, probes or [])


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What is the name of Ana's kitten?", "What is the name of my kitten?"),
        ("When did Ana go to Oslo?", "When did I go to Oslo?"),
        ("Is Ana a member of a choir?", "Am I a member of a choir?"),
        ("What does Ana like to paint?", "What do I like to paint?"),
        ("Has Ana ever been to Rome?", "Have I ever been to Rome?"),
        ("Who is Anabel?", "Who is Anabel?"),  # another name that starts the same
    ],
)
def test_questions_are_asked_as_the_user(question: str, asked: str) -> None:
    assert ask_as_user(question, "Ana") == asked


def test_the_first_speaker_is_the_user_and_no_turn_keeps_a_name() -> None:
    probes = [
        Probe("What is Ana's kitten called?", "Pixel", 4),
        Probe("What did Bo cook?", "pasta", 4),  # about the assistant: left out
        Probe("Did Ana and Bo meet?", "yes", 1),  # about both: left out
    ]
    chats = as_chat([dialogue(0, ("Ana Lee", "I got a kitten, Pixel."), ("Bo", "Nice!"),
                              probes=probes)])  # fmt: skip
    [chat] = chats
    assert [(t.role, t.speaker) for t in chat.turns] == [
        ("user", "user"),
        ("assistant", "assistant"),
    ]
    assert [t.text for t in chat.turns] == ["I got a kitten, Pixel.", "Nice!"]
    assert chat.probes == [Probe("What is my kitten called?", "Pixel", 4)]


def test_padding_borrows_other_conversations_turns_the_same_way_each_run() -> None:
    one = dialogue(0, ("Ana", "I sing in a choir."), ("Bo", "Cool."))
    two = dialogue(1, ("Cy", "My bike is red."), ("Di", "Fast?"), ("Cy", "Very fast."))
    padded = as_chat([one, two], padding=3)
    reply = padded[0].turns[1].text
    assert reply.startswith("Cool. ")
    borrowed = reply.removeprefix("Cool. ")
    assert "choir" not in borrowed  # never its own conversation's words
    pieces = ("My bike is red.", "Fast?", "Very fast.")
    assert sum(borrowed.count(p) for p in pieces) == 3
    assert padded[0].turns[0].text == "I sing in a choir."  # the user's turns as they were
    assert as_chat([one, two], padding=3)[0].turns[1].text == reply
    with pytest.raises(ValidationError, match="padding"):
        as_chat([one, two], padding=-1)


def test_a_conversation_of_one_speaker_is_left_out() -> None:
    assert as_chat([dialogue(0, ("Ana", "Hello."), ("Ana", "Anyone?"))]) == []


def test_cli_runs_the_chat_form(tmp_path: Path) -> None:
    data = dataset(tmp_path / "d.json")
    result = CliRunner().invoke(
        app,
        ["eval", "context", "--data", str(data), "--budgets", "200", "--conversations", "0-1",
         "--chat", "--padding", "2"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "as user/assistant chats (padding 2)" in result.output
    metrics = json.loads(result.output.strip().splitlines()[-1])["metrics"]
    asked = sum(len(d.probes) for d in as_chat(load_dialogues(data), 2))
    assert metrics["tuned.assemble.200.questions"] == asked == 4
    # "What is the name of my kitten?" is answered by the user's own turn
    assert metrics["tuned.assemble.200"] >= 0.5


def test_cli_refuses_padding_without_the_chat_form(tmp_path: Path) -> None:
    data = str(dataset(tmp_path / "d.json"))
    for args in (["--padding", "2"], ["--chat", "--padding", "-1"]):
        result = CliRunner().invoke(app, ["eval", "context", "--data", data, *args])
        assert result.exit_code != 0
        assert "--padding" in result.output

"""Messages: chat turns in, filed as episodes with the facts they state extracted.

The rules (limits, idempotency, extraction) are the service's: see
:mod:`sedimem.conversation.ingest`.
"""

from typing import Annotated

from fastapi import APIRouter
from pydantic import ConfigDict, Field

from sedimem.api.auth import Caller, Writer
from sedimem.api.narrowing import ScopeFields, resolve
from sedimem.api.paths import id_path
from sedimem.api.state import MemoryDep
from sedimem.types.conversation import MAX_MESSAGES, IngestResult, MessageFields

__all__ = ["MessagesIn", "router"]

router = APIRouter(prefix="/v1/messages", tags=["messages"])


class MessagesIn(ScopeFields):
    """Chat turns of one scope (a session, when given, is where they were said)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "user": "ana",
                    "session": "s-42",
                    "messages": [
                        {
                            "role": "user",
                            "content": "I moved to Oslo last May.",
                            "timestamp": "2024-09-01T10:00:00Z",
                            "id": "m-1",
                        },
                        {
                            "role": "assistant",
                            "content": "Noted: you live in Oslo now.",
                            "timestamp": "2024-09-01T10:00:05Z",
                            "id": "m-2",
                        },
                    ],
                }
            ]
        }
    )

    messages: list[MessageFields] = Field(
        min_length=1,
        max_length=MAX_MESSAGES,
        description=f"The turns, oldest first (1..{MAX_MESSAGES}).",
    )
    background: bool = Field(
        default=False,
        description="Extract facts in the background: the answer carries a job id at once "
        "(the turns are filed already); GET /v1/messages/jobs/{job_id} tells how it ended.",
    )


@router.post(
    "",
    summary="Ingest chat turns",
    description="Files each turn as a conversational episode (once per message id: a turn "
    "sent again is reported under `duplicates`), then learns the facts the new turns state "
    "with the configured extractor: inserted, reinforced, superseded or ended, with possible "
    "conflicts.",
)
async def ingest_messages(body: MessagesIn, caller: Writer, memory: MemoryDep) -> IngestResult:
    return await memory.ingest(body.messages, resolve(caller, body), background=body.background)


@router.get(
    "/jobs/{job_id}",
    summary="A background ingest's status",
    description="Kept by the server process that took the ingest, for the keys that may "
    "read what it wrote (a key narrowed to another user gets 404).",
)
async def ingest_job(
    job_id: Annotated[str, id_path("The job id the ingest answered with.")],
    caller: Caller,
    memory: MemoryDep,
) -> IngestResult:
    return memory.conversations.job(job_id, reader=resolve(caller))

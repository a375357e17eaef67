"""Episodes: record one, read one, page through them with filters.

The router is built per app because the page cap (``limit``'s maximum) is a setting and
belongs in the published schema, where a client reads it.
"""

from typing import Annotated

from fastapi import APIRouter, Query

from sedimem.api.auth import Caller, Writer
from sedimem.api.narrowing import ScopeQuery, resolve
from sedimem.api.paths import Cursor, id_path
from sedimem.api.responses import Created
from sedimem.api.schemas import EpisodeIn, EpisodePatch, time_range
from sedimem.api.state import MemoryDep
from sedimem.api.values import AS_BOOLEAN, AS_INTEGER, AS_NUMBER, Instant, OutcomeName
from sedimem.errors import NotFound
from sedimem.longterm.episodic import MAX_PAGE
from sedimem.scope import Identifier
from sedimem.types.longterm import Episode, Label
from sedimem.types.search import Page

__all__ = ["router"]

EpisodeId = Annotated[str, id_path("The episode's id.")]


async def record_episode(body: EpisodeIn, caller: Writer, memory: MemoryDep) -> Created:
    """Records one unit of experience (what was tried, how it ended, what was learned) in the scope
    given by the key and the body's scope fields. Answers with the new episode's id.
    """
    episode = body.to_record(resolve(caller, body))
    await memory.episodes.record(episode)
    return Created(id=episode.id)


async def get_episode(episode_id: EpisodeId, caller: Caller, memory: MemoryDep) -> Episode:
    """Reads one episode by id: 404 when the key's tenant has none, 403 when it lies outside the
    key's narrowing.
    """
    return await memory.episodes.get(episode_id, scope=resolve(caller))


async def update_episode(
    episode_id: EpisodeId, body: EpisodePatch, caller: Writer, memory: MemoryDep
) -> Episode:
    """Changes the fields given (the others stay) and re-indexes the episode for search. Answers
    with the episode as stored now.
    """
    return await memory.episodes.update(episode_id, body.to_changes(), scope=resolve(caller))


async def delete_episode(episode_id: EpisodeId, caller: Writer, memory: MemoryDep) -> None:
    """Deletes one episode by id. What was derived from it stays: `POST /v1/forget` erases
    derived records too."""
    if not await memory.episodes.delete(episode_id, scope=resolve(caller)):
        raise NotFound(f"episode {episode_id!r} does not exist")


def router(max_page_size: int) -> APIRouter:
    """The episode routes, with ``limit`` capped at ``max_page_size`` (and the service's cap)."""
    cap = min(max_page_size, MAX_PAGE)
    routes = APIRouter(prefix="/v1/episodes", tags=["episodes"])
    routes.add_api_route(
        "", record_episode, methods=["POST"], status_code=201, summary="Record an episode"
    )

    async def list_episodes(
        caller: Caller,
        memory: MemoryDep,
        query: ScopeQuery,
        limit: Annotated[int, Query(ge=1, le=cap, description="Page size."), AS_INTEGER] = min(
            50, cap
        ),
        cursor: Cursor = None,
        outcome: Annotated[
            OutcomeName | None, Query(description="Only episodes that ended so.")
        ] = None,
        task_type: Annotated[Label | None, Query(description="Only this task type.")] = None,
        since: Annotated[Instant | None, Query(description="Occurred at or after.")] = None,
        until: Annotated[Instant | None, Query(description="Occurred at or before.")] = None,
        min_importance: Annotated[
            float | None,
            Query(ge=0.0, le=1.0, description="Only episodes at least this important (0..1)."),
            AS_NUMBER,
        ] = None,
        newest_first: Annotated[
            bool, Query(description="Newest first (default: oldest first)."), AS_BOOLEAN
        ] = False,
        from_session: Annotated[
            Identifier | None,
            Query(description="Only episodes recorded in this session (default: every one)."),
        ] = None,
    ) -> Page[Episode]:
        """Pages through the episodes the scope sees, oldest first (or newest first), filtered by
        outcome, task type, time and importance. Pass `next_cursor` back as `cursor` for the
        next page.
        """
        return await memory.episodes.list(
            resolve(caller, query),
            limit=limit,
            cursor=cursor,
            outcome=outcome,
            task_type=task_type,
            time_range=time_range(since, until),
            min_importance=min_importance,
            newest_first=newest_first,
            session=from_session,
        )

    routes.add_api_route(
        "",
        list_episodes,
        methods=["GET"],
        summary="Episodes visible to the scope, a page at a time",
    )
    routes.add_api_route("/{episode_id}", get_episode, methods=["GET"], summary="One episode")
    routes.add_api_route(
        "/{episode_id}",
        update_episode,
        methods=["PATCH"],
        summary="Change fields of an episode (the fields given; re-indexed for search)",
    )
    routes.add_api_route(
        "/{episode_id}",
        delete_episode,
        methods=["DELETE"],
        status_code=204,
        summary="Delete an episode",
    )
    return routes

"""API keys: the admin issues and lists them; a key of the tenant may revoke too, and any
key may read its own description (what the web inspector shows and obeys)."""

from typing import Annotated

from fastapi import APIRouter, Query

from sedimem.api.auth import Admin, AdminOrCaller, Caller
from sedimem.api.paths import id_path
from sedimem.api.responses import KeyList, NewKey
from sedimem.api.schemas import KeyRequest
from sedimem.api.state import MemoryDep
from sedimem.api.values import AS_BOOLEAN
from sedimem.keys import ApiKey
from sedimem.scope import Identifier

__all__ = ["router"]

router = APIRouter(prefix="/v1/keys", tags=["keys"])


@router.post("", status_code=201, summary="Issue a key (admin): the secret is shown this once")
async def create_key(body: KeyRequest, admin: Admin, memory: MemoryDep) -> NewKey:
    """Issues an API key for a tenant, optionally narrowed to a project, user or agent, or read-
    only. Needs the admin key. The answer holds the secret once; only its hash is stored.
    """
    issued = await memory.keys.create(
        body.tenant,
        access=admin,
        project=body.project,
        user=body.user,
        agent=body.agent,
        label=body.label,
        read_only=body.read_only,
    )
    return NewKey.of(issued)


@router.get("", summary="List keys (admin)")
async def list_keys(
    admin: Admin,
    memory: MemoryDep,
    tenant: Annotated[Identifier | None, Query(description="Only this tenant's keys.")] = None,
    include_revoked: Annotated[bool, Query(description="Revoked keys too."), AS_BOOLEAN] = False,
) -> KeyList:
    """Lists the issued keys (never their secrets), of every tenant or of one.

    Needs the admin key.
    """
    return KeyList(
        items=await memory.keys.list(tenant, include_revoked=include_revoked, access=admin)
    )


@router.get("/self", summary="The calling key: its tenant and what it is narrowed to")
async def own_key(caller: Caller) -> ApiKey:
    """Describes the key the request is made with: its tenant, what it is narrowed to and whether
    it is read-only (what the web inspector shows and obeys).
    """
    return caller


@router.delete("/{key_id}", summary="Revoke a key (admin, or a key of the same tenant)")
async def revoke_key(
    key_id: Annotated[str, id_path("The key's id.")],
    caller: AdminOrCaller,
    memory: MemoryDep,
) -> ApiKey:
    """Revokes a key: it stops working at once. The admin may revoke any key; a key of the tenant
    may revoke itself, and a key narrowed to nothing may revoke the tenant's other keys.
    """
    return await memory.keys.revoke(key_id, access=caller)

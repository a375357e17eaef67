"""Pinned blocks of the key's owner scope (its user or agent): always first in a context."""

from typing import Annotated

from fastapi import APIRouter, Path

from sedimem.api.auth import Caller, Writer
from sedimem.api.narrowing import OwnerQuery, resolve
from sedimem.api.responses import BlockList
from sedimem.api.schemas import BlockAppend, BlockPut
from sedimem.api.state import MemoryDep
from sedimem.errors import NotFound
from sedimem.types.blocks import Block
from sedimem.types.blocks import BlockName as BlockNameText

__all__ = ["router"]

router = APIRouter(prefix="/v1/blocks", tags=["blocks"])

BlockName = Annotated[
    BlockNameText,
    Path(description="The block's name, e.g. `persona` or `user_profile`."),
]


@router.get("", summary="The blocks the scope sees, in pinned order")
async def list_blocks(caller: Caller, memory: MemoryDep, query: OwnerQuery) -> BlockList:
    """Lists the pinned blocks the scope sees (its own and those of its parents), in the order an
    assembled context shows them.
    """
    return BlockList(items=await memory.blocks(resolve(caller, query)).list())


@router.put("/{name}", summary="Create or replace a block")
async def put_block(
    name: BlockName, body: BlockPut, caller: Writer, memory: MemoryDep, query: OwnerQuery
) -> Block:
    """Creates the block, or replaces its content (and position, when given). Pinned blocks are
    placed first in every assembled context of their owner.
    """
    blocks = memory.blocks(resolve(caller, query, body))
    return await blocks.update(name, body.content, position=body.position)


@router.post("/{name}/append", summary="Append text to a block (created if missing)")
async def append_block(
    name: BlockName, body: BlockAppend, caller: Writer, memory: MemoryDep, query: OwnerQuery
) -> Block:
    """Appends text to a block after the separator, creating the block when it does not exist. The
    result must stay within the block size limit.
    """
    blocks = memory.blocks(resolve(caller, query, body))
    return await blocks.append(name, body.text, separator=body.separator)


@router.delete("/{name}", status_code=204, summary="Delete the scope's own block")
async def delete_block(
    name: BlockName, caller: Writer, memory: MemoryDep, query: OwnerQuery
) -> None:
    """Deletes a block the scope owns; 404 when it has none of that name."""
    if not await memory.blocks(resolve(caller, query)).delete(name):
        raise NotFound(f"block {name!r} does not exist")

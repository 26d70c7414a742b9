"""Request and response shapes of the memory-tool endpoint (`memoryconsole.api.routers.memory_tool`):
a command of Claude's memory tool (`memory_20250818`) as the model sends it, and its answer."""

from typing import Literal

from ninja import Field

from memoryconsole.api.schemas import Out, StrictIn, Text

PATH = Field(None, max_length=300, description="A path under /memories.")


class MemoryToolIn(StrictIn):
    """The tool call's `input`, passed on unchanged; each command uses its own fields."""

    command: Literal["view", "create", "str_replace", "insert", "delete", "rename"]
    path: Text | None = PATH
    view_range: tuple[int, int] | None = Field(
        None, description="view: first and last line (1-based; -1 for the end)."
    )
    file_text: Text | None = Field(None, max_length=30_000, description="create: the text.")
    old_str: Text | None = Field(None, max_length=2_000, description="str_replace: the text.")
    new_str: Text | None = Field(None, max_length=30_000, description="str_replace: new text.")
    insert_line: int | None = Field(None, description="insert: the line to insert after.")
    insert_text: Text | None = Field(None, max_length=30_000, description="insert: the text.")
    old_path: Text | None = PATH
    new_path: Text | None = PATH


class MemoryToolOut(Out):
    result: str = Field(description="The tool result for the model, as text.")

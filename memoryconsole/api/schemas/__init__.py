"""The bots' contract: every request and response shape of the API, written out field by field.

No ModelSchema: index columns must not leak into the contract. Requests are ninja Schemas;
responses are plain pydantic models (see `Out`). Input strings refuse NUL and lone
surrogates (they can't be stored in a file or in Postgres), and input objects refuse unknown
fields, so a caller can't name a shard or a bot it is not.
"""

from memoryconsole.api.schemas.base import (
    FACT_ID,
    MESSAGE_ID,
    SLUG,
    ContextHeaders,
    FactId,
    Out,
    StrictIn,
    Text,
    check_project,
)
from memoryconsole.api.schemas.facts import (
    CopyOut,
    EditIn,
    ErasedOut,
    FactOut,
    FactPageOut,
    ForgetIn,
    ForgetOut,
    ForgetWhere,
    ListFilters,
    RememberIn,
    RememberOut,
    RemovedOut,
)
from memoryconsole.api.schemas.learning import ExchangeIn, ExchangeOut, RememberedOut, SourcesOut
from memoryconsole.api.schemas.reading import (
    BlockOut,
    ChangesIn,
    ChangesOut,
    ErrorOut,
    HealthOut,
    LinkOut,
    MeOut,
    NoteOut,
    PromptOut,
    PromptQuery,
    RecallOut,
    RecallQuery,
)

__all__ = [
    "FactId",
    "SLUG",
    "FACT_ID",
    "MESSAGE_ID",
    "Text",
    "StrictIn",
    "Out",
    "ContextHeaders",
    "FactOut",
    "RememberOut",
    "RememberIn",
    "ForgetIn",
    "CopyOut",
    "RemovedOut",
    "ErasedOut",
    "ForgetOut",
    "EditIn",
    "FactPageOut",
    "ListFilters",
    "ForgetWhere",
    "RecallQuery",
    "LinkOut",
    "PromptQuery",
    "RecallOut",
    "BlockOut",
    "NoteOut",
    "PromptOut",
    "ChangesIn",
    "ChangesOut",
    "ExchangeIn",
    "ExchangeOut",
    "RememberedOut",
    "SourcesOut",
    "MeOut",
    "HealthOut",
    "ErrorOut",
    "check_project",
]

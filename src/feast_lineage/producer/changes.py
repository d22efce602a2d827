"""What an apply changed: the registry before and after, compared object by object.

An object counts as changed when its definition changed: its spec protobuf
(the whole protobuf for data sources) with the fields Feast rewrites on every
apply left out (``meta``, created and updated timestamps, and the pickled body
of a transformation, whose source text is compared instead).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from feast_lineage.registry.objects import ProjectObjects, Ref

_VOLATILE = frozenset({"meta", "created_timestamp", "last_updated_timestamp"})


@dataclass
class Changes:
    """Objects created, changed and deleted, each with the object itself."""

    after: ProjectObjects
    created: dict[Ref, Any] = field(default_factory=dict)
    changed: dict[Ref, Any] = field(default_factory=dict)
    deleted: dict[Ref, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.created or self.changed or self.deleted)

    def upserted(self) -> dict[Ref, Any]:
        return {**self.created, **self.changed}


def fingerprint(obj: Any) -> bytes:
    """The bytes of an object's definition; equal bytes mean an unchanged object."""
    proto = obj.to_proto()
    names = {f.name for f in proto.DESCRIPTOR.fields}
    message = proto.spec if "spec" in names else proto
    copy = type(message)()
    copy.CopyFrom(message)
    _strip(copy)
    data: bytes = copy.SerializeToString(deterministic=True)
    return data


def _strip(message: Any) -> None:
    udf = message.DESCRIPTOR.name.startswith("UserDefinedFunction")
    for descriptor, value in message.ListFields():
        name = descriptor.name
        if name in _VOLATILE or (udf and name == "body"):
            message.ClearField(name)
        elif descriptor.message_type is None:
            continue
        elif descriptor.is_repeated:
            if descriptor.message_type.GetOptions().map_entry:
                value_field = descriptor.message_type.fields_by_name["value"]
                if value_field.message_type is not None:
                    for item in value.values():
                        _strip(item)
            else:
                for item in value:
                    _strip(item)
        else:
            _strip(value)


def diff(before: ProjectObjects, after: ProjectObjects) -> Changes:
    changes = Changes(after=after)
    old = dict(before.refs())
    new = dict(after.refs())
    for ref, obj in new.items():
        previous = old.get(ref)
        if previous is None:
            changes.created[ref] = obj
        elif type(previous) is not type(obj) or fingerprint(previous) != fingerprint(obj):
            changes.changed[ref] = obj
    for ref, obj in old.items():
        if ref not in new:
            changes.deleted[ref] = obj
    return changes

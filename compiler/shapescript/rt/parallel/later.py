"""A loop's steps without the controller's round trip: a step's logs record read later.

In a loop over a dataset's batches, the controller posts a step's call to the workers
before it reads the answer of the step before (controller.py), so that the workers always
have their next call at hand. Until its answer is read, such a step's result is a `Later`
record: an instance of the program's logs class whose values come with the answer. A
`sink.write` of one waits in `_writes`, in order, and is made once the answer is read:
when the next step is posted, when the loop ends, or before anything else the program
shows (another write, a flush, a print, a checkpoint). Reading one of its values reads
the answer at once.
"""

from __future__ import annotations

from typing import Any

#: The writes waiting for their records' answers, in the order they were made.
_writes: list[tuple[Any, Later]] = []
#: The programs with a call whose answer isn't read yet.
_unread: list[Any] = []
#: Each logs class's subclass for records read later.
_classes: dict[type, type] = {}
#: An error read when a loop was left early (by `return`), raised by the next call.
_held: list[BaseException] = []


class Later:
    """A logs record whose call's answer the controller hasn't read yet."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        state = self.__dict__
        if "_ss_failed" in state:
            raise state["_ss_failed"]
        if not state.get("_ss_filled"):
            state["_ss_program"].read_unread()
            if "_ss_failed" in state:
                raise state["_ss_failed"]
        return object.__getattribute__(self, name)

    def _ss_fill(self, record: Any) -> None:
        """Take the values of the record the workers answered with."""
        self.__dict__.update(record.__dict__)
        self.__dict__["_ss_filled"] = True

    def _ss_fail(self, error: BaseException) -> None:
        self.__dict__["_ss_failed"] = error


def record(cls: type, program: Any) -> Later:
    """A record of the logs class `cls` to be read later from `program`'s workers."""
    later_cls = _classes.get(cls)
    if later_cls is None:
        namespace = {"_ss_name": cls._ss_name, "__module__": cls.__module__}
        later_cls = type(cls.__name__, (Later, cls), namespace)
        later_cls.__qualname__ = cls.__qualname__
        _classes[cls] = later_cls
    made = object.__new__(later_cls)
    made.__dict__["_ss_program"] = program
    return made


def unread(program: Any) -> None:
    """Note that `program` has a call whose answer isn't read yet."""
    if program not in _unread:
        _unread.append(program)


def read(program: Any) -> None:
    """Note that `program`'s answers are all read."""
    if program in _unread:
        _unread.remove(program)


def write_later(sink: Any, value: Any) -> bool:
    """Keep `sink.write(value)` until its record's answer is read (True), or, for a record
    at hand, make the writes waiting before it first (False: the caller writes it)."""
    if isinstance(value, Later) and not value.__dict__.get("_ss_filled"):
        if "_ss_failed" not in value.__dict__:
            _writes.append((sink, value))
        return True
    settle()
    return False


def settle() -> None:
    """Read every answer left unread, and make the writes that waited for them."""
    for program in list(_unread):
        program.read_unread()
    made()


def made() -> None:
    """Make the waiting writes whose records have their values, in order, up to the first
    that hasn't; drop those whose call failed."""
    while _writes:
        sink, value = _writes[0]
        state = value.__dict__
        if not state.get("_ss_filled") and "_ss_failed" not in state:
            return
        _writes.pop(0)
        if state.get("_ss_filled"):
            sink.write(value._ss_record())


def loop_ended() -> None:
    """At the end of a loop over a dataset's batches: its last step's answer is read."""
    settle()


def loop_left() -> None:
    """When a loop is left before its end (a `return`, an error): its last step's answer
    is read, and an error in it kept for the next call, since it can't be raised here."""
    try:
        settle()
    except Exception as error:  # noqa: BLE001 - raised by the next call
        _held.append(error)


def raise_held() -> None:
    """Raise the error of a loop's last step read when the loop was left, if any."""
    if _held:
        raise _held.pop(0)


def forget(program: Any) -> None:
    """Drop what waits for `program`'s workers once they are stopped."""
    read(program)
    _writes[:] = [(s, v) for s, v in _writes if v.__dict__["_ss_program"] is not program]

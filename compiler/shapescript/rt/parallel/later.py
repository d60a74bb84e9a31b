"""A loop's steps without the controller's round trip: a step's logs record read later.

In a loop over a dataset's batches, the controller posts a step's call to the workers
before it reads the answer of the step before (controller.py), so that the workers always
have their next call at hand. Until its answer is read, such a step's result is a `Later`
record: an instance of the program's logs class whose values come with the answer. A
`sink.write` of one waits in `_writes`, in order, and is made once the answer is read:
when the next step is posted, when the loop ends, or before anything else the program
shows (another write, a flush, a print, a checkpoint). Reading one of its values reads
the answer at once. Once filled in, a record becomes an instance of the logs class itself,
so `type(record)`, `pickle` and `copy` see the record a call from Python returns.
"""

from __future__ import annotations

from typing import Any

#: The writes waiting for their records' answers, in the order they were made, each with
#: the program whose workers answer it.
_writes: list[tuple[Any, Any, Any]] = []
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
        Later._ss_wait(self)
        return object.__getattribute__(self, name)

    def __reduce__(self) -> Any:
        """Pickled or copied: the record with its values, once they are read."""
        Later._ss_wait(self)
        return self.__reduce_ex__(2)

    def _ss_wait(self) -> None:
        """Read the call's answer, or raise the call's error."""
        state = self.__dict__
        if "_ss_failed" not in state:
            state["_ss_program"].read_unread()
        if "_ss_failed" in state:
            raise state["_ss_failed"]

    def _ss_fill(self, record: Any) -> None:
        """Take the values of the record the workers answered with, and become a record of
        the logs class itself."""
        state = self.__dict__
        state.clear()
        state.update(record.__dict__)
        object.__setattr__(self, "__class__", type(self)._ss_logs_class)

    def _ss_fail(self, error: BaseException) -> None:
        self.__dict__["_ss_failed"] = error


def pending(value: Any) -> bool:
    """Whether `value` is a record whose call's answer isn't read yet (nor failed)."""
    return isinstance(value, Later) and "_ss_failed" not in value.__dict__


def record(cls: type, program: Any) -> Later:
    """A record of the logs class `cls` to be read later from `program`'s workers."""
    later_cls = _classes.get(cls)
    if later_cls is None:
        namespace = {"_ss_name": cls._ss_name, "_ss_logs_class": cls, "__module__": cls.__module__}
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
    if isinstance(value, Later):
        if pending(value):
            _writes.append((sink, value, value.__dict__["_ss_program"]))
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
        sink, value, _program = _writes[0]
        if pending(value):
            return
        _writes.pop(0)
        if not isinstance(value, Later):
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
    _writes[:] = [waiting for waiting in _writes if waiting[2] is not program]

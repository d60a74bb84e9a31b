"""Logs records and models as the code generator compiles them, for these tests."""

from __future__ import annotations

from shapescript.rt.logs import Logs
from shapescript.rt.models import Field, Model


class StepLogs(Logs):
    """One step's numbers: a [] f32 loss, its gradient's norm, a token count, a flag."""

    _ss_name = "StepLogs"
    _ss_metrics = (
        ("loss", "mean", "f32"),
        ("grad_norm", "max", "f32"),
        ("tokens", "sum", "i64"),
        ("finite", "min", "bool"),
        ("lr", "last", "float"),
    )


class EvalLogs(Logs):
    _ss_name = "EvalLogs"
    _ss_metrics = (("accuracy", "mean", "f32"),)


class Counts(Logs):
    """Host-scalar metrics only."""

    _ss_name = "Counts"
    _ss_metrics = (("epoch", "last", "int"), ("seen", "sum", "int"), ("done", "max", "bool"))


class Big(Model):
    """Two 2M-element fields: a checkpoint of about 16 MB, slow enough to kill mid-write."""

    _ss_fields = (
        Field("a", "param", (2048, 1024), "f32", ("zeros", {})),
        Field("b", "buffer", (2048, 1024), "f32", ("zeros", {})),
    )

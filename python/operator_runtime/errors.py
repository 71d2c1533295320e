"""Typed errors: one OprtError subclass per oprt_status_t, carrying the library's detail message."""

from __future__ import annotations

import enum


class Status(enum.IntEnum):
    SUCCESS = 0
    NULL_POINTER = 1
    INVALID_ARGUMENT = 2
    BAD_DTYPE = 3
    BAD_SHAPE = 4
    BAD_STRIDES = 5
    INSUFFICIENT_WORKSPACE = 6
    NOT_SUPPORTED = 7
    BACKEND_UNAVAILABLE = 8
    OUT_OF_MEMORY = 9
    DEVICE_ERROR = 10
    BAD_DESCRIPTOR = 11
    INTERNAL = 12


class OprtError(RuntimeError):
    """An operator_runtime call failed; .status is the Status, .detail the library's message."""

    status = None

    def __init__(self, detail: str, status: Status | None = None):
        super().__init__(detail)
        if status is not None:
            self.status = status
        self.detail = detail


class NullPointerError(OprtError):
    status = Status.NULL_POINTER


class InvalidArgumentError(OprtError, ValueError):
    status = Status.INVALID_ARGUMENT


class BadDtypeError(OprtError, TypeError):
    status = Status.BAD_DTYPE


class BadShapeError(OprtError, ValueError):
    status = Status.BAD_SHAPE


class BadStridesError(OprtError, ValueError):
    status = Status.BAD_STRIDES


class InsufficientWorkspaceError(OprtError):
    status = Status.INSUFFICIENT_WORKSPACE


class NotSupportedError(OprtError):
    status = Status.NOT_SUPPORTED


class BackendUnavailableError(OprtError):
    status = Status.BACKEND_UNAVAILABLE


class OutOfMemoryError(OprtError, MemoryError):
    status = Status.OUT_OF_MEMORY


class DeviceError(OprtError):
    status = Status.DEVICE_ERROR


class BadDescriptorError(OprtError):
    status = Status.BAD_DESCRIPTOR


class InternalError(OprtError):
    """A bug in the library (an unexpected C++ exception, caught at the C boundary)."""

    status = Status.INTERNAL


ERROR_FOR_STATUS = {cls.status: cls for cls in OprtError.__subclasses__()}


def error_for(status: int, detail: str) -> OprtError:
    status = Status(status) if status in Status._value2member_map_ else status
    return ERROR_FOR_STATUS.get(status, OprtError)(detail, status)

package io.sluice.rpc.remote;

import java.io.Serializable;

/**
 * What goes over the wire in place of a {@link Throwable}: the throwable itself in Java
 * serialization form (when it could be serialized) and, beside it, everything needed to rebuild a
 * {@link SerializedThrowable} when the receiver cannot recreate the original: class name,
 * message, stack trace, cause and suppressed throwables (each in turn an envelope) and whether it
 * was marked {@link io.sluice.api.errors.UnrecoverableJobException}. Written and read only by
 * {@link RpcSerialization}'s streams.
 */
record ThrowableEnvelope(byte[] original, String className, String message, StackTraceElement[] stackTrace,
                         Throwable cause, Throwable[] suppressed, boolean unrecoverable) implements Serializable {
}

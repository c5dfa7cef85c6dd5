package io.sluice.core.serialization;

import io.sluice.api.errors.UnrecoverableJobException;

/** A record of a type without a serializer reached an edge: fix the job (declare one with {@code returns}). */
public class MissingSerializerException extends SerializationException implements UnrecoverableJobException {
    public MissingSerializerException(String message) {
        super(message);
    }
}

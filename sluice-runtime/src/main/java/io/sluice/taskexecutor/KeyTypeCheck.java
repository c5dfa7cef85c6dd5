package io.sluice.taskexecutor;

import io.sluice.core.serialization.DynamicSerializer;
import io.sluice.api.errors.InvalidJobException;

/**
 * Fails a keyed task at its first key of a type the default key serializer cannot write into
 * checkpoints, instead of letting it run and then fail every checkpoint. Costs one reference
 * comparison per record: the check runs only when the key's class differs from the last one's.
 * A declared key serializer ({@code keyBy(selector, serializer)}) is trusted. Task thread only.
 */
final class KeyTypeCheck {
    private final String taskName;
    private final boolean declared;
    private Class<?> lastChecked;

    KeyTypeCheck(String taskName, boolean keySerializerDeclared) {
        this.taskName = taskName;
        this.declared = keySerializerDeclared;
    }

    void check(Object key) {
        if (declared || key == null || key.getClass() == lastChecked) {
            return;
        }
        if (!DynamicSerializer.supports(key.getClass())) {
            throw new InvalidJobException("Task " + taskName + " got a key of type " + key.getClass().getName()
                    + ", which the default key serializer cannot write into checkpoints (Sluice does not use Java"
                    + " serialization). Declare a serializer for the key with keyBy(selector, TypeSerializer), or key"
                    + " by a record, an enum, a UUID, a String, a boxed primitive or a Tuple2/Tuple3 of these.");
        }
        lastChecked = key.getClass();
    }
}

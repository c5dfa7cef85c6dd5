package io.sluice.api.errors;

/** Two kinds of keyed state (value, list, map) were declared under one name: rename one of them. */
public class StateKindConflictException extends IllegalArgumentException implements UnrecoverableJobException {
    public StateKindConflictException(String message) {
        super(message);
    }
}

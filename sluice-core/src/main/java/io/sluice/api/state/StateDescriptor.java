package io.sluice.api.state;

import java.io.Serializable;
import java.util.Objects;

/** Names a piece of keyed state; the name is unique per operator and survives restarts. */
public abstract class StateDescriptor implements Serializable {
    private final String name;

    protected StateDescriptor(String name) {
        this.name = Objects.requireNonNull(name, "state name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("A state name must not be blank");
        }
    }

    public String name() {
        return name;
    }

    public abstract Kind kind();

    /** The kinds of keyed state. */
    public enum Kind { VALUE, LIST, MAP }
}

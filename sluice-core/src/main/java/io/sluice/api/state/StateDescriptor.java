package io.sluice.api.state;

import java.io.Serializable;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** Names a piece of keyed state; the name is unique per operator and survives restarts. */
public abstract class StateDescriptor implements Serializable {
    /** Pinned to the value of the build before state time-to-live, so stored job graphs stay readable. */
    private static final long serialVersionUID = -9009742278783660415L;

    private final String name;
    /** {@code null}: the state's values never expire. Absent (null) in job graphs stored before time-to-live. */
    private @Nullable StateTtlConfig ttlConfig;

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

    /**
     * Gives the state's values a time-to-live: a value not written (or, with
     * {@link StateTtlConfig.UpdateType#ON_READ_AND_WRITE}, not read) for {@link StateTtlConfig#ttl()} is
     * invisible to reads and removed in the background. For list state the time counts per element, for
     * map state per map entry. Call before the descriptor is used. Adding or removing a time-to-live on
     * a state that already has values changes its type: a restore refuses it (give the state a new name).
     */
    public void enableTimeToLive(StateTtlConfig ttlConfig) {
        this.ttlConfig = java.util.Objects.requireNonNull(ttlConfig, "ttlConfig");
    }

    /** The state's time-to-live, or {@code null} if its values never expire. */
    public @Nullable StateTtlConfig ttlConfig() {
        return ttlConfig;
    }

    /** The kinds of keyed state. */
    public enum Kind { VALUE, LIST, MAP }
}

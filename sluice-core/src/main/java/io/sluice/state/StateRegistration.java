package io.sluice.state;

import io.sluice.api.errors.StateTypeChangedException;
import io.sluice.core.serialization.SerializerIdentity;
import io.sluice.core.serialization.TypeSerializer;
import java.util.List;

/**
 * What a backend does when a state is declared again with a descriptor, typically right after a
 * restore registered it with the serializers a snapshot recorded: keep the values as they are, have
 * them rewritten with the new serializers ({@link Outcome#MIGRATE}), or refuse because the state's
 * type changed ({@link StateTypeChangedException}). The same rules for every backend, so a job that
 * restores on the heap restores on RocksDB too.
 *
 * <ul>
 *   <li>the same serializers (stable id, parameter, nested serializers and format version, or the same
 *       class for serializers without an identity): {@link Outcome#SAME};</li>
 *   <li>the same id in another format version, the dynamic serializer on either side (its values are
 *       whatever the job stored: the new serializer must accept them), or two serializers without an
 *       identity of other classes: {@link Outcome#MIGRATE}: values are read with the old serializers and
 *       written with the new ones, and a value the new one cannot write fails the restore naming the
 *       state;</li>
 *   <li>two different built-in types (for example {@code sluice.long} and {@code sluice.string}), or a
 *       time-to-live added or removed ({@code sluice.ttl}): the state's type changed, refused.</li>
 * </ul>
 *
 * <p>Stateless; any thread.
 */
public final class StateRegistration {
    /** What the backend does with the values it holds. */
    public enum Outcome {
        /** Keep them as they are. */
        SAME,
        /** Rewrite them with the new serializers. */
        MIGRATE
    }

    private static final String DYNAMIC = "sluice.dynamic";

    private StateRegistration() {}

    /**
     * Compares the serializers of {@code registered} (what the backend holds) with those of
     * {@code requested} (same name and kind).
     *
     * @param owner names the task in the message
     * @throws StateTypeChangedException if the state's type changed
     */
    public static Outcome compare(StateMetaInfo registered, StateMetaInfo requested, String owner) {
        Outcome outcome = Outcome.SAME;
        for (int i = 0; i < registered.serializerCount(); i++) {
            Outcome o = compare(registered.serializer(i), requested.serializer(i));
            if (o == null) {
                throw new StateTypeChangedException("State '" + registered.name() + "' of " + owner + " was written"
                        + " with " + describe(registered, i) + ", but the job now declares it with "
                        + describe(requested, i) + ": its type changed, so its values cannot be read. Restore with the"
                        + " job version that wrote it, give the changed state a new name (it then starts empty), or"
                        + " start without this checkpoint or savepoint");
            }
            if (o == Outcome.MIGRATE) {
                outcome = Outcome.MIGRATE;
            }
        }
        return outcome;
    }

    /** SAME, MIGRATE, or {@code null} for a type change. */
    private static Outcome compare(TypeSerializer<?> old, TypeSerializer<?> now) {
        if (old == now) {
            return Outcome.SAME;
        }
        SerializerIdentity a = old.identity();
        SerializerIdentity b = now.identity();
        if (a == null || b == null) {
            if (a == null && b == null) {
                return old.getClass() == now.getClass() ? Outcome.SAME : Outcome.MIGRATE;
            }
            return Outcome.MIGRATE; // a user serializer on one side: nothing to compare, so rewrite through it
        }
        if (DYNAMIC.equals(a.id()) || DYNAMIC.equals(b.id())) {
            return a.id().equals(b.id()) && a.version() == b.version() ? Outcome.SAME : Outcome.MIGRATE;
        }
        if (!a.id().equals(b.id()) || !java.util.Objects.equals(a.parameter(), b.parameter())
                || a.nested().size() != b.nested().size()) {
            return null;
        }
        Outcome outcome = a.version() == b.version() ? Outcome.SAME : Outcome.MIGRATE;
        List<TypeSerializer<?>> na = a.nested();
        List<TypeSerializer<?>> nb = b.nested();
        for (int i = 0; i < na.size(); i++) {
            Outcome o = compare(na.get(i), nb.get(i));
            if (o == null) {
                return null;
            }
            if (o == Outcome.MIGRATE) {
                outcome = Outcome.MIGRATE;
            }
        }
        return outcome;
    }

    private static String describe(StateMetaInfo info, int i) {
        String role = switch (info.kind()) {
            case VALUE -> "values";
            case LIST -> "elements";
            case MAP -> i == 0 ? "map keys" : "map values";
        };
        return role + " of " + describe(info.serializer(i));
    }

    private static String describe(TypeSerializer<?> s) {
        SerializerIdentity id = s.identity();
        if (id == null) {
            return s.getClass().getName();
        }
        StringBuilder b = new StringBuilder(id.id());
        if (id.parameter() != null) {
            b.append('(').append(id.parameter()).append(')');
        }
        if (!id.nested().isEmpty()) {
            b.append('<');
            for (int i = 0; i < id.nested().size(); i++) {
                b.append(i == 0 ? "" : ", ").append(describe(id.nested().get(i)));
            }
            b.append('>');
        }
        return b.append(" v").append(id.version()).toString();
    }
}

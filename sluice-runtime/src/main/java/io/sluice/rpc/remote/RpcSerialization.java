package io.sluice.rpc.remote;

import io.sluice.api.UnrecoverableJobException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.NotSerializableException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Java serialization of RPC arguments and results, with three substitutions and a filter:
 * <ul>
 *   <li>a gateway object (a remote proxy, or a local object implementing a gateway interface) is
 *       written as a {@link GatewayReference} and read back as a proxy calling it (or as the local
 *       object itself when the reference points back to the reading process);</li>
 *   <li>a {@link Throwable} is written as a {@link ThrowableEnvelope} and read back as the original
 *       when the receiver can recreate it, else as a {@link SerializedThrowable} that keeps its
 *       class name, message, stack trace, causes and the {@link UnrecoverableJobException} marker;</li>
 *   <li>an {@link Optional} is written as an {@link OptionalValue};</li>
 *   <li>reading is restricted by {@link #filter(long)}: a depth, reference and size limit, and only
 *       classes of the JDK's basic packages ({@code java.lang}, {@code java.util}, {@code java.time},
 *       ...) and of Sluice ({@code io.sluice.*}). Anything else is refused (a throwable of another
 *       class then arrives as a {@link SerializedThrowable}).</li>
 * </ul>
 * Stateless apart from the {@link Context}; the streams are used by one thread each.
 */
final class RpcSerialization {
    private static final Logger LOG = LoggerFactory.getLogger(RpcSerialization.class);

    /** Deepest object nesting accepted when reading. */
    static final int MAX_DEPTH = 256;
    /** Most object references accepted in one message. */
    static final long MAX_REFERENCES = 2_000_000;

    /** Packages (exactly these, not their sub-packages) whose classes may be read, besides {@code io.sluice.*}. */
    private static final List<String> ALLOWED_JDK_PACKAGES = List.of("java.lang", "java.util", "java.util.concurrent",
            "java.util.concurrent.atomic", "java.time", "java.io", "java.net", "java.nio.file", "java.math");

    private RpcSerialization() {}

    /** How gateways are turned into references and back; implemented by {@link RpcService}. */
    interface Context {
        /** The reference to write for {@code object}, or {@code null} if it is not a gateway. */
        GatewayReference referenceFor(Object object);

        /** The proxy (or local object) for a reference read from the wire. */
        Object resolve(GatewayReference reference);

        ClassLoader classLoader();
    }

    static byte[] serialize(Object value, Context context) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (RpcObjectOutputStream out = new RpcObjectOutputStream(bytes, context, true)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    static Object deserialize(InputStream in, long maxBytes, Context context) throws IOException, ClassNotFoundException {
        try (RpcObjectInputStream objects = new RpcObjectInputStream(in, maxBytes, context)) {
            return objects.readObject();
        }
    }

    /** The filter of every RPC input stream: limits, and the allowed classes. */
    static ObjectInputFilter filter(long maxBytes) {
        return info -> {
            if (info.depth() > MAX_DEPTH || info.references() > MAX_REFERENCES
                    || info.streamBytes() > maxBytes || info.arrayLength() > maxBytes) {
                return ObjectInputFilter.Status.REJECTED;
            }
            Class<?> type = info.serialClass();
            if (type == null) {
                return ObjectInputFilter.Status.ALLOWED;
            }
            return isAllowed(type) ? ObjectInputFilter.Status.ALLOWED : ObjectInputFilter.Status.REJECTED;
        };
    }

    static boolean isAllowed(Class<?> type) {
        if (java.lang.reflect.Proxy.isProxyClass(type)) {
            // only ever a gateway proxy made by resolveObject: the stream itself refuses proxy classes
            return true;
        }
        while (type.isArray()) {
            type = type.getComponentType();
        }
        if (type.isPrimitive()) {
            return true;
        }
        String name = type.getName();
        if (name.startsWith("io.sluice.")) {
            return true;
        }
        String pkg = type.getPackageName();
        return ALLOWED_JDK_PACKAGES.contains(pkg);
    }

    /** Writes with the substitutions described on {@link RpcSerialization}. */
    static final class RpcObjectOutputStream extends ObjectOutputStream {
        private final Context context;
        private final boolean envelopeThrowables;

        RpcObjectOutputStream(OutputStream out, Context context, boolean envelopeThrowables) throws IOException {
            super(out);
            this.context = context;
            this.envelopeThrowables = envelopeThrowables;
            enableReplaceObject(true);
        }

        @Override
        protected Object replaceObject(Object obj) throws IOException {
            if (obj == null || obj instanceof String || obj instanceof Number) {
                return obj;
            }
            if (obj instanceof Optional<?> optional) {
                return new OptionalValue(optional.orElse(null));
            }
            if (envelopeThrowables && obj instanceof Throwable t) {
                return envelope(t, context);
            }
            GatewayReference reference = context.referenceFor(obj);
            return reference != null ? reference : obj;
        }
    }

    private static ThrowableEnvelope envelope(Throwable t, Context context) {
        byte[] original = null;
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
            try (RpcObjectOutputStream out = new RpcObjectOutputStream(bytes, context, false)) {
                out.writeObject(t);
            }
            original = bytes.toByteArray();
        } catch (IOException | RuntimeException e) {
            // Not serializable (a field of it, or of a cause): the receiver gets the stand-in.
            LOG.debug("Throwable {} is not serializable ({}); sending its class name, message and stack trace", t.getClass().getName(), e.toString());
        }
        Throwable cause = t.getCause() == t ? null : t.getCause();
        return new ThrowableEnvelope(original, t.getClass().getName(), t.getMessage(), t.getStackTrace(), cause,
                t.getSuppressed(), t instanceof UnrecoverableJobException);
    }

    /** Reads with the substitutions described on {@link RpcSerialization}, through {@link #filter(long)}. */
    static final class RpcObjectInputStream extends ObjectInputStream {
        private final Context context;
        private final long maxBytes;

        RpcObjectInputStream(InputStream in, long maxBytes, Context context) throws IOException {
            super(in);
            this.context = context;
            this.maxBytes = maxBytes;
            setObjectInputFilter(filter(maxBytes));
            enableResolveObject(true);
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            try {
                return Class.forName(desc.getName(), false, context.classLoader());
            } catch (ClassNotFoundException e) {
                return super.resolveClass(desc); // primitives
            }
        }

        @Override
        protected Class<?> resolveProxyClass(String[] interfaces) throws IOException {
            throw new java.io.InvalidClassException("RPC messages carry no dynamic proxies; gateways travel as references");
        }

        @Override
        protected Object resolveObject(Object obj) throws IOException {
            if (obj instanceof GatewayReference reference) {
                return context.resolve(reference);
            }
            if (obj instanceof OptionalValue optional) {
                return Optional.ofNullable(optional.value());
            }
            if (obj instanceof ThrowableEnvelope envelope) {
                return recreate(envelope);
            }
            return obj;
        }

        private Throwable recreate(ThrowableEnvelope e) {
            if (e.original() != null) {
                try (RpcObjectInputStream in = new RpcObjectInputStream(new ByteArrayInputStream(e.original()), maxBytes, context)) {
                    Object t = in.readObject();
                    if (t instanceof Throwable throwable) {
                        return throwable;
                    }
                } catch (IOException | ClassNotFoundException | RuntimeException notHere) {
                    LOG.debug("Cannot recreate {} here ({}); using a SerializedThrowable", e.className(), notHere.toString());
                }
            }
            return SerializedThrowable.of(e.className(), e.message(), e.stackTrace(), e.cause(), e.suppressed(), e.unrecoverable());
        }
    }

    /** "the arguments" / "the answer" could not be serialized: says which class is to blame. */
    static String describe(IOException e) {
        if (e instanceof NotSerializableException) {
            return e.getMessage() + " is not Serializable";
        }
        return e.toString();
    }
}

package io.sluice.rpc.remote;

import io.sluice.api.errors.UnrecoverableJobException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.InvalidObjectException;
import java.io.NotSerializableException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.OutputStream;
import java.io.Serializable;
import java.lang.reflect.Proxy;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Java serialization of RPC arguments and results, with substitutions and a filter:
 * <ul>
 *   <li>a gateway object (a remote proxy, or a local object implementing a gateway interface) is
 *       written as a {@link GatewayReference} and read back as a proxy calling it (or as the local
 *       object itself when the reference points back to the reading process);</li>
 *   <li>a {@link Throwable} is written as a {@link ThrowableEnvelope}: the throwable itself in
 *       serialized form, with its cause and suppressed throwables left out (they travel in their
 *       own envelopes beside it), plus its class name, message and stack trace. It is read back as
 *       the original class when the receiver can recreate it, else as a {@link SerializedThrowable}
 *       that keeps class name, message, stack trace and the {@link UnrecoverableJobException}
 *       marker. Each level of a cause chain is recreated on its own, so a
 *       {@code StorageException} caused by a library exception the receiver lacks is still a
 *       {@code StorageException};</li>
 *   <li>an {@link Optional} is written as an {@link OptionalValue};</li>
 *   <li>reading is restricted by a {@link Filter}: a depth, reference and size limit, and only
 *       the classes the service's {@link RpcMessageTypes} allow: what the gateway interfaces it
 *       serves and calls carry, and a small JDK vocabulary. Anything else is refused (a throwable of
 *       another class then arrives as a {@link SerializedThrowable}).</li>
 * </ul>
 * Stateless apart from the {@link Context}; each stream is used by one thread.
 */
final class RpcSerialization {
    private static final Logger LOG = LoggerFactory.getLogger(RpcSerialization.class);

    /** Deepest object nesting accepted when reading. */
    static final int MAX_DEPTH = 256;
    /** Most object references accepted in one message. */
    static final long MAX_REFERENCES = 2_000_000;

    private RpcSerialization() {}

    /** How gateways are turned into references and back; implemented by {@link RpcService}. */
    interface Context {
        /** The reference to write for {@code object}, or {@code null} if it is not a gateway. */
        GatewayReference referenceFor(Object object);

        /** The proxy (or local object) for a reference read from the wire. */
        Object resolve(GatewayReference reference);

        ClassLoader classLoader();

        /** The classes messages may hold. */
        RpcMessageTypes messageTypes();
    }

    static byte[] serialize(Object value, Context context) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (RpcObjectOutputStream out = new RpcObjectOutputStream(bytes, context, null)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    static Object deserialize(InputStream in, long maxBytes, Context context) throws IOException, ClassNotFoundException {
        try (RpcObjectInputStream objects = new RpcObjectInputStream(in, maxBytes, context, null)) {
            try {
                return objects.readObject();
            } catch (InvalidClassException e) {
                String why = objects.filter.rejection();
                if (why == null) {
                    throw e;
                }
                InvalidClassException named = new InvalidClassException(why);
                named.initCause(e);
                throw named;
            }
        }
    }

    /**
     * The filter of every RPC input stream: limits, and the allowed classes. Remembers why it
     * refused, so that the error names the class or the limit.
     */
    static final class Filter implements ObjectInputFilter {
        private final long maxBytes;
        private final RpcMessageTypes types;
        private volatile String rejection;

        Filter(long maxBytes, RpcMessageTypes types) {
            this.maxBytes = maxBytes;
            this.types = types;
        }

        @Override
        public Status checkInput(FilterInfo info) {
            if (info.depth() > MAX_DEPTH) {
                return reject("objects nested deeper than " + MAX_DEPTH + " levels");
            }
            if (info.references() > MAX_REFERENCES) {
                return reject("more than " + MAX_REFERENCES + " object references");
            }
            if (info.streamBytes() > maxBytes || info.arrayLength() > maxBytes) {
                return reject("more than " + maxBytes + " bytes (" + io.sluice.config.RpcOptions.MAX_MESSAGE_SIZE.key() + ")");
            }
            Class<?> type = info.serialClass();
            if (type == null || Proxy.isProxyClass(type) || types.allows(type)) {
                // a proxy class is only ever a gateway proxy made by resolveObject: the stream itself refuses them
                return Status.ALLOWED;
            }
            return reject("class " + type.getName() + ", which RPC messages may not carry: it is no argument or result"
                    + " type of the gateway interfaces this process serves and calls, nor part of one, nor a basic JDK"
                    + " type (a Sluice version mismatch between the processes, or a foreign client)");
        }

        private Status reject(String why) {
            rejection = "refused to read " + why;
            return Status.REJECTED;
        }

        /** Why the last object was refused, or {@code null}. */
        String rejection() {
            return rejection;
        }
    }

    /** "the arguments" / "the answer" could not be serialized: says which class is to blame. */
    static String describe(IOException e) {
        if (e instanceof NotSerializableException) {
            return e.getMessage() + " is not Serializable";
        }
        return e.toString();
    }

    /**
     * Stands for the cause ({@code index} 0) or the {@code index - 1}-th suppressed throwable of a
     * throwable written in its envelope; those travel in the envelope, each in its own.
     */
    record ThrowablePlaceholder(int index) implements Serializable {
    }

    /** Writes with the substitutions described on {@link RpcSerialization}. */
    static final class RpcObjectOutputStream extends ObjectOutputStream {
        private final Context context;
        /** When writing the serialized form inside an envelope: that throwable. */
        private final Throwable enveloped;

        RpcObjectOutputStream(OutputStream out, Context context, Throwable enveloped) throws IOException {
            super(out);
            this.context = context;
            this.enveloped = enveloped;
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
            if (obj instanceof Throwable t) {
                if (enveloped == null) {
                    return envelope(t, context);
                }
                int index = t == enveloped ? -1 : relativeIndex(enveloped, t);
                return index >= 0 ? new ThrowablePlaceholder(index) : obj;
            }
            GatewayReference reference = context.referenceFor(obj);
            return reference != null ? reference : obj;
        }
    }

    /** 0 for the cause of {@code top}, i + 1 for its i-th suppressed throwable, -1 for any other. */
    private static int relativeIndex(Throwable top, Throwable t) {
        if (t == top.getCause()) {
            return 0;
        }
        Throwable[] suppressed = top.getSuppressed();
        for (int i = 0; i < suppressed.length; i++) {
            if (suppressed[i] == t) {
                return i + 1;
            }
        }
        return -1;
    }

    private static ThrowableEnvelope envelope(Throwable t, Context context) {
        byte[] original = null;
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
            try (RpcObjectOutputStream out = new RpcObjectOutputStream(bytes, context, t)) {
                out.writeObject(t);
            }
            original = bytes.toByteArray();
        } catch (IOException | RuntimeException e) {
            // Not serializable (a field of it): the receiver gets the stand-in.
            LOG.debug("Throwable {} is not serializable ({}); sending its class name, message and stack trace",
                    t.getClass().getName(), e.toString());
        }
        Throwable cause = t.getCause() == t ? null : t.getCause();
        return new ThrowableEnvelope(original, t.getClass().getName(), t.getMessage(), t.getStackTrace(), cause,
                t.getSuppressed(), t instanceof UnrecoverableJobException);
    }

    /** Reads with the substitutions described on {@link RpcSerialization}, through a {@link Filter}. */
    static final class RpcObjectInputStream extends ObjectInputStream {
        private final Context context;
        private final long maxBytes;
        /** When reading the serialized form inside an envelope: the envelope (its cause and suppressed fill the placeholders). */
        private final ThrowableEnvelope envelope;
        final Filter filter;

        RpcObjectInputStream(InputStream in, long maxBytes, Context context, ThrowableEnvelope envelope) throws IOException {
            super(in);
            this.context = context;
            this.maxBytes = maxBytes;
            this.envelope = envelope;
            this.filter = new Filter(maxBytes, context.messageTypes());
            setObjectInputFilter(filter);
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
            throw new InvalidClassException("RPC messages carry no dynamic proxies; gateways travel as references");
        }

        @Override
        protected Object resolveObject(Object obj) throws IOException {
            if (obj instanceof GatewayReference reference) {
                return context.resolve(reference);
            }
            if (obj instanceof OptionalValue optional) {
                return Optional.ofNullable(optional.value());
            }
            if (obj instanceof ThrowableEnvelope e) {
                return recreate(e);
            }
            if (obj instanceof ThrowablePlaceholder placeholder) {
                int i = placeholder.index();
                if (envelope == null || (i == 0 ? envelope.cause() == null
                        : envelope.suppressed() == null || i > envelope.suppressed().length)) {
                    throw new InvalidObjectException("A throwable placeholder without its throwable");
                }
                return i == 0 ? envelope.cause() : envelope.suppressed()[i - 1];
            }
            return obj;
        }

        private Throwable recreate(ThrowableEnvelope e) {
            if (e.original() != null) {
                try (RpcObjectInputStream in = new RpcObjectInputStream(new ByteArrayInputStream(e.original()), maxBytes,
                        context, e)) {
                    Object t = in.readObject();
                    if (t instanceof Throwable throwable) {
                        return throwable;
                    }
                } catch (IOException | ClassNotFoundException | RuntimeException notHere) {
                    LOG.debug("Cannot recreate {} here ({}); using a SerializedThrowable", e.className(), notHere.toString());
                }
            }
            return SerializedThrowable.of(e.className(), e.message(), e.stackTrace(), e.cause(), e.suppressed(),
                    e.unrecoverable());
        }
    }
}

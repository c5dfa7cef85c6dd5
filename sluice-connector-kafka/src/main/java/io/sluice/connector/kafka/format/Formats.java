package io.sluice.connector.kafka.format;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/** The built-in formats: raw bytes, UTF-8 strings and JSON (Jackson). Stateless; any thread. */
public final class Formats {
    private Formats() {}

    /** The bytes as they are. */
    public static Format<byte[]> bytes() {
        return new BytesFormat();
    }

    /** UTF-8 text. Malformed input is replaced, not refused (as {@link String#String(byte[], java.nio.charset.Charset)}). */
    public static Format<String> strings() {
        return new StringFormat();
    }

    /**
     * JSON objects to and from {@code type} (a record, or a class Jackson can create), through Jackson.
     * Unknown properties fail the decode (so a changed producer is noticed); pass a configured
     * mapper's settings by subclassing if that is not wanted.
     */
    public static <T> Format<T> json(Class<T> type) {
        return new JsonFormat<>(Objects.requireNonNull(type, "type"));
    }

    private static final class BytesFormat implements Format<byte[]> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] decode(byte[] bytes) {
            return bytes;
        }

        @Override
        public byte[] encode(byte[] value) {
            return value;
        }

        @Override
        public String name() {
            return "bytes";
        }
    }

    private static final class StringFormat implements Format<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String decode(byte[] bytes) {
            return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
        }

        @Override
        public byte[] encode(String value) {
            return value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String name() {
            return "string";
        }
    }

    private static final class JsonFormat<T> implements Format<T> {
        private static final long serialVersionUID = 1L;
        private final Class<T> type;
        private transient ObjectMapper mapper;

        JsonFormat(Class<T> type) {
            this.type = type;
        }

        private ObjectMapper mapper() {
            if (mapper == null) {
                mapper = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
            }
            return mapper;
        }

        @Override
        public T decode(byte[] bytes) throws java.io.IOException {
            return bytes == null ? null : mapper().readValue(bytes, type);
        }

        @Override
        public byte[] encode(T value) throws java.io.IOException {
            return value == null ? null : mapper().writeValueAsBytes(value);
        }

        @Override
        public String name() {
            return "json(" + type.getSimpleName() + ")";
        }
    }
}

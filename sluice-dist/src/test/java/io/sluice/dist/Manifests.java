package io.sluice.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The Kubernetes manifests of {@code deploy/kubernetes}, parsed with SnakeYAML's safe constructor:
 * every document of every {@code *.yaml} file, with small helpers to walk the parsed maps. Test
 * code; immutable once loaded.
 */
final class Manifests {
    /** One parsed document: its file and its content. */
    record Resource(String file, Map<String, Object> content) {
        String kind() {
            return (String) content.get("kind");
        }

        String name() {
            return string(content, "metadata", "name");
        }

        @Override
        public String toString() {
            return kind() + " " + name() + " (" + file + ")";
        }
    }

    private final List<Resource> resources;

    private Manifests(List<Resource> resources) {
        this.resources = List.copyOf(resources);
    }

    static Manifests load(Path directory) throws IOException {
        List<Path> files;
        try (Stream<Path> listing = Files.list(directory)) {
            files = listing.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted().toList();
        }
        return parse(files.stream().map(f -> Map.entry(f.getFileName().toString(), read(f))).toList());
    }

    /** Parses {@code (file name, text)} pairs, in order; a text may hold several documents. */
    static Manifests parse(List<Map.Entry<String, String>> texts) {
        List<Resource> out = new ArrayList<>();
        for (Map.Entry<String, String> text : texts) {
            for (Object document : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(text.getValue())) {
                if (document == null) {
                    continue;
                }
                if (!(document instanceof Map<?, ?>)) {
                    throw new AssertionError(text.getKey() + " holds a document that is not a mapping: " + document);
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> map = (Map<String, Object>) document;
                out.add(new Resource(text.getKey(), map));
            }
        }
        return new Manifests(out);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new AssertionError("Cannot read " + file + ": " + e, e);
        }
    }

    List<Resource> all() {
        return resources;
    }

    List<Resource> ofKind(String kind) {
        return resources.stream().filter(r -> kind.equals(r.kind())).toList();
    }

    Resource one(String kind, String name) {
        return find(kind, name).orElseThrow(() -> new AssertionError("No " + kind + " named " + name + " in " + resources));
    }

    Optional<Resource> find(String kind, String name) {
        return resources.stream().filter(r -> kind.equals(r.kind()) && name.equals(r.name())).findFirst();
    }

    // ---- walking parsed YAML

    /** The node at {@code path} under {@code node} (map keys), or null where the path ends early. */
    static Object at(Object node, String... path) {
        Object current = node;
        for (String key : path) {
            if (!(current instanceof Map<?, ?> map)) {
                return null;
            }
            current = map.get(key);
        }
        return current;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object node, String... path) {
        Object value = at(node, path);
        return value instanceof Map<?, ?> ? (Map<String, Object>) value : Map.of();
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object node, String... path) {
        Object value = at(node, path);
        return value instanceof List<?> ? (List<Object>) value : List.of();
    }

    static String string(Object node, String... path) {
        Object value = at(node, path);
        return value == null ? null : value.toString();
    }

    /** The containers of a Deployment's or StatefulSet's pod template. */
    static List<Object> containers(Resource workload) {
        return list(workload.content(), "spec", "template", "spec", "containers");
    }

    static Map<String, Object> podLabels(Resource workload) {
        return map(workload.content(), "spec", "template", "metadata", "labels");
    }

    /** Whether {@code selector} (a map of labels) selects pods with {@code labels}. */
    static boolean selects(Map<String, Object> selector, Map<String, Object> labels) {
        return !selector.isEmpty() && labels.entrySet().containsAll(selector.entrySet());
    }
}

package io.sluice.rest.model;

import java.util.List;

/** {@code GET /v1/jars}: the stored jars, oldest first. */
public record JarListView(List<JarInfo> jars) {
    public JarListView {
        jars = List.copyOf(jars);
    }
}

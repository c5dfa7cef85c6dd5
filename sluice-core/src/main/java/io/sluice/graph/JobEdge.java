package io.sluice.graph;

import java.io.Serializable;

/** A data exchange between two job vertices. The record serializer and key selector travel in the vertex payloads. */
public record JobEdge(int id, int sourceVertexId, int targetVertexId, PartitionKind partitioning) implements Serializable {
}

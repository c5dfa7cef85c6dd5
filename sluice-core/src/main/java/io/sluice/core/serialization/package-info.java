/**
 * Serializers: {@code TypeSerializer}, the built-ins of {@code Serializers}, the dynamic
 * serializer, the registry that records a serializer's identity in snapshots, and the reading of
 * data written by earlier builds ({@code LegacySerializerObjectInputStream}, {@code
 * MovedClasses}).
 *
 * <p>Layer 3 of 11 in sluice-core (serialization; docs/architecture.md). May use the packages of
 * the layers below: {@code util}, {@code config}, {@code api.errors}, {@code api.tuple}, {@code
 * api.eventtime}, {@code api.windowing}. Uses today: {@code api.errors}, {@code api.tuple}, {@code
 * api.windowing}. Never a package of a layer above; no cycles (the module's architecture test
 * checks both).
 */
package io.sluice.core.serialization;

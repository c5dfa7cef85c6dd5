package io.sluice.state.rocksdb;

import io.sluice.state.IncrementalStateHandle;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.StateMetaInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ExportImportFilesMetaData;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * The part of a restore from several incremental handles that needs no re-insertion: the table files
 * of every downloaded instance whose files hold only key groups of this backend's range (an instance
 * written for a range inside it, as when a job is rescaled to fewer subtasks) are exported and
 * imported, state by state, into one new column family each. RocksDB links them in as they are, so
 * the restore costs the download and no rewrite; the key groups of different instances are disjoint,
 * so their files never overlap. An instance with a file that reaches outside (a range that straddles
 * this backend's, or the leftovers of an earlier clipping that a compaction has not yet dropped) is
 * left to the entry-by-entry copy, which runs after the import and writes into the imported column
 * families.
 *
 * <p>Threading: task thread only, before any state is registered.
 */
final class TableFileImport {
    private final RocksDbInstance instance;
    private final RocksDbStates states;
    private final KeyGroupRange range;

    TableFileImport(RocksDbInstance instance, RocksDbStates states, KeyGroupRange range) {
        this.instance = instance;
        this.states = states;
        this.range = range;
    }

    /**
     * Imports what it can of {@code handles} (downloaded to {@code downloaded}, same order) and registers
     * their states; returns the indexes of the handles it did not take, which the caller copies entry by
     * entry. A handle with none of this backend's key groups counts as taken.
     */
    Set<Integer> importWherePossible(List<Path> downloaded, List<IncrementalStateHandle> handles) {
        Map<String, StateMetaInfo> infos = new LinkedHashMap<>();
        Map<String, List<ExportImportFilesMetaData>> exports = new LinkedHashMap<>();
        Set<Integer> left = new HashSet<>();
        try {
            for (int i = 0; i < handles.size(); i++) {
                IncrementalStateHandle handle = handles.get(i);
                KeyGroupRange groups = range.intersection(handle.keyGroupRange());
                if (groups.size() > 0 && !export(downloaded.get(i), IncrementalMetaData.decode(handle.stateMetaData()),
                        groups.start(), groups.end(), infos, exports)) {
                    left.add(i);
                }
            }
            for (StateMetaInfo info : infos.values()) {
                List<ExportImportFilesMetaData> files = exports.get(info.name());
                if (files == null) {
                    states.create(info);
                } else {
                    states.adopt(info, instance.importColumn(info.name(), files));
                }
            }
            return left;
        } finally {
            exports.values().forEach(list -> list.forEach(ExportImportFilesMetaData::close));
        }
    }

    /**
     * Exports every state's files of the instance at {@code files} when they all lie in key groups
     * {@code from..to}; {@code false}, exporting nothing, when one does not.
     */
    private boolean export(Path files, IncrementalMetaData meta, int from, int to, Map<String, StateMetaInfo> infos,
                           Map<String, List<ExportImportFilesMetaData>> exports) {
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (ColumnFamilyOptions compactionsOff = instance.compactionsOffOptions()) {
            try (RocksDB source = instance.openForExport(files, meta.states(), compactionsOff, handles);
                 Checkpoint checkpoint = Checkpoint.create(source)) {
                try {
                    List<LiveFileMetaData> live = source.getLiveFilesMetaData();
                    if (!allWithin(live, RocksDbKeys.groupPrefix(from), RocksDbKeys.groupPrefix(to + 1))) {
                        return false;
                    }
                    for (int s = 0; s < meta.states().size(); s++) {
                        StateMetaInfo info = meta.states().get(s);
                        StateMetaInfo known = infos.putIfAbsent(info.name(), info);
                        if (known != null) {
                            RocksDbStates.requireSameKind(known, info, " in another instance of this restore");
                        }
                        if (hasFiles(live, info.name())) {
                            exports.computeIfAbsent(info.name(), n -> new ArrayList<>()).add(checkpoint
                                    .exportColumnFamily(handles.get(s + 1), files.resolve("export-" + s).toString()));
                        }
                    }
                    return true;
                } finally {
                    handles.forEach(ColumnFamilyHandle::close);
                }
            }
        } catch (RocksDBException e) {
            throw new RocksDbStateException("Could not export the table files of the restored RocksDB instance "
                    + files + " for " + instance.owner() + ": " + e.getMessage(), e);
        }
    }

    /** Whether every table file's keys lie in {@code [low, high)}; the default column family holds none. */
    private static boolean allWithin(List<LiveFileMetaData> live, byte[] low, byte[] high) {
        for (LiveFileMetaData f : live) {
            if (Arrays.compareUnsigned(f.smallestKey(), low) < 0 || Arrays.compareUnsigned(f.largestKey(), high) >= 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasFiles(List<LiveFileMetaData> live, String stateName) {
        byte[] name = stateName.getBytes(StandardCharsets.UTF_8);
        for (LiveFileMetaData f : live) {
            if (Arrays.equals(f.columnFamilyName(), name)) {
                return true;
            }
        }
        return false;
    }
}

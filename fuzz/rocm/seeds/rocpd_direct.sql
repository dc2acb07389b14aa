-- Fuzz seed written for gpuwhy (same rows as rocm_importer_test.cc).
CREATE TABLE rocpd_metadata_u1 (id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE rocpd_string_u1 (id INTEGER PRIMARY KEY, guid TEXT, string TEXT NOT NULL UNIQUE);
CREATE TABLE rocpd_info_node_u1 (id INTEGER PRIMARY KEY, guid TEXT, hash BIGINT, machine_id TEXT,
  hostname TEXT);
CREATE TABLE rocpd_info_process_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, ppid INTEGER,
  pid INTEGER NOT NULL, command TEXT, environment JSONB, extdata JSONB);
CREATE TABLE rocpd_info_thread_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, ppid INTEGER,
  pid INTEGER, tid INTEGER NOT NULL, name TEXT, extdata JSONB);
CREATE TABLE rocpd_info_agent_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,
  type TEXT, absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, uuid INTEGER,
  name TEXT, generic_name TEXT, model_name TEXT, vendor_name TEXT, product_name TEXT,
  extdata JSONB);
CREATE TABLE rocpd_info_kernel_symbol_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER,
  pid INTEGER, code_object_id INTEGER, kernel_name TEXT, display_name TEXT,
  group_segment_size INTEGER, private_segment_size INTEGER, sgpr_count INTEGER,
  arch_vgpr_count INTEGER, accum_vgpr_count INTEGER, extdata JSONB);
CREATE TABLE rocpd_info_pmc_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,
  agent_id INTEGER, name TEXT NOT NULL, symbol TEXT NOT NULL);
CREATE TABLE rocpd_event_u1 (id INTEGER PRIMARY KEY, guid TEXT, category_id INTEGER,
  stack_id INTEGER, parent_stack_id INTEGER, correlation_id INTEGER, call_stack JSONB,
  line_info JSONB, extdata JSONB);
CREATE TABLE rocpd_pmc_event_u1 (id INTEGER PRIMARY KEY, guid TEXT, event_id INTEGER,
  pmc_id INTEGER NOT NULL, value REAL DEFAULT 0.0, extdata JSONB);
CREATE TABLE rocpd_region_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,
  tid INTEGER, start BIGINT NOT NULL, "end" BIGINT NOT NULL, name_id INTEGER NOT NULL,
  event_id INTEGER, extdata JSONB);
CREATE TABLE rocpd_kernel_dispatch_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER,
  pid INTEGER, tid INTEGER, agent_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL,
  dispatch_id INTEGER NOT NULL, queue_id INTEGER NOT NULL, stream_id INTEGER NOT NULL,
  start BIGINT NOT NULL, "end" BIGINT NOT NULL, private_segment_size INTEGER,
  group_segment_size INTEGER, workgroup_size_x INTEGER NOT NULL, workgroup_size_y INTEGER NOT NULL,
  workgroup_size_z INTEGER NOT NULL, grid_size_x INTEGER NOT NULL, grid_size_y INTEGER NOT NULL,
  grid_size_z INTEGER NOT NULL, region_name_id INTEGER, event_id INTEGER, extdata JSONB);
CREATE TABLE rocpd_memory_copy_u1 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,
  tid INTEGER, start BIGINT NOT NULL, "end" BIGINT NOT NULL, name_id INTEGER NOT NULL,
  dst_agent_id INTEGER, dst_address INTEGER, src_agent_id INTEGER, src_address INTEGER,
  size INTEGER NOT NULL, queue_id INTEGER, stream_id INTEGER, region_name_id INTEGER,
  event_id INTEGER, extdata JSONB);
CREATE VIEW rocpd_kernel_dispatch AS SELECT * FROM rocpd_kernel_dispatch_u1;
INSERT INTO rocpd_metadata_u1 (tag, value) VALUES ('schema_version', '3');

INSERT INTO rocpd_string_u1 (id, string) VALUES (1, 'HIP_RUNTIME_API_EXT'),
  (2, 'hipLaunchKernel'), (3, 'MARKER_CORE_API'), (4, 'step 1'),
  (5, 'MEMORY_COPY_HOST_TO_DEVICE'), (6, 'hipMemcpyAsync');
INSERT INTO rocpd_info_process_u1 (id, nid, pid, command) VALUES (1, 1, 4242, 'train.py');
INSERT INTO rocpd_info_thread_u1 (id, nid, pid, tid) VALUES (1, 1, 1, 4243);
INSERT INTO rocpd_info_agent_u1 (id, nid, pid, type, absolute_index, logical_index, type_index,
  name, generic_name, product_name, extdata) VALUES
  (0, 1, 1, 'CPU', 0, 0, 0, 'AMD EPYC', 'AMD EPYC', 'AMD EPYC', '{}'),
  (1, 1, 1, 'GPU', 1, 1, 0, 'AMD Instinct MI300X', 'gfx942', 'AMD Instinct MI300X',
   '{"cu_count": 304, "wave_front_size": 64, "max_waves_per_cu": 32, "workgroup_max_size": 1024,
     "lds_size_in_kb": 64}');
INSERT INTO rocpd_info_kernel_symbol_u1 (id, nid, pid, code_object_id, kernel_name, display_name,
  arch_vgpr_count) VALUES (1, 1, 1, 1, '_Z3addPfi.kd', 'add(float*, int)', 24);
INSERT INTO rocpd_info_pmc_u1 (id, nid, pid, agent_id, name, symbol) VALUES
  (1, 1, 1, 1, 'SQ_WAVES', 'SQ_WAVES');
INSERT INTO rocpd_event_u1 (id, category_id, correlation_id) VALUES (1, 1, 7), (2, NULL, 7),
  (3, 3, 0), (4, 1, 8), (5, NULL, 8);
INSERT INTO rocpd_region_u1 (nid, pid, tid, start, "end", name_id, event_id) VALUES
  (1, 1, 1, 1000, 1500, 2, 1), (1, 1, 1, 900, 9000, 4, 3), (1, 1, 1, 5000, 5200, 6, 4);
INSERT INTO rocpd_kernel_dispatch_u1 (nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id,
  stream_id, start, "end", group_segment_size, workgroup_size_x, workgroup_size_y,
  workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, event_id) VALUES
  (1, 1, 1, 1, 1, 1, 3, 0, 2000, 4000, 512, 256, 1, 1, 1000, 2, 1, 2);
INSERT INTO rocpd_memory_copy_u1 (nid, pid, tid, start, "end", name_id, dst_agent_id,
  src_agent_id, size, queue_id, stream_id, event_id) VALUES
  (1, 1, 1, 5100, 6100, 5, 1, 0, 4096, NULL, 0, 5);
INSERT INTO rocpd_pmc_event_u1 (event_id, pmc_id, value) VALUES (2, 1, 48.0);

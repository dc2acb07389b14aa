-- Fuzz seed written for gpuwhy (same rows as rocm_importer_test.cc).
CREATE TABLE rocpd_string_u2 (id INTEGER PRIMARY KEY, string TEXT NOT NULL);
CREATE TABLE rocpd_info_agent_u2 (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER, type TEXT,
  absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, name TEXT,
  product_name TEXT, extdata JSONB);
CREATE TABLE rocpd_info_kernel_symbol_u2 (id INTEGER PRIMARY KEY, kernel_name TEXT,
  display_name TEXT, arch_vgpr_count INTEGER);
CREATE TABLE rocpd_track_u2 (id INTEGER PRIMARY KEY, nid INTEGER, ppid INTEGER, pid INTEGER,
  tid INTEGER, agent_id INTEGER, queue_id INTEGER, stream_id INTEGER, name_id INTEGER);
CREATE TABLE rocpd_timestamp_u2 (id INTEGER PRIMARY KEY, value BIGINT NOT NULL, phase INTEGER,
  track_id INTEGER);
CREATE TABLE rocpd_event_u2 (id INTEGER PRIMARY KEY, category_id INTEGER, correlation_id INTEGER);
CREATE TABLE rocpd_kernel_dispatch_u2 (id INTEGER PRIMARY KEY, track_id INTEGER NOT NULL,
  kernel_id INTEGER NOT NULL, dispatch_id INTEGER NOT NULL, start_id INTEGER NOT NULL,
  end_id INTEGER NOT NULL, private_segment_size INTEGER, group_segment_size INTEGER,
  workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER,
  grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER, region_name_id INTEGER,
  event_id INTEGER);
INSERT INTO rocpd_info_agent_u2 VALUES (5, 1, 1, 'GPU', 5, 2, 0, 'gfx90a', NULL, '{}');
INSERT INTO rocpd_info_kernel_symbol_u2 VALUES (1, 'k.kd', NULL, 8);
INSERT INTO rocpd_track_u2 VALUES (1, 1, NULL, 77, 78, 5, 4, NULL, NULL);
INSERT INTO rocpd_timestamp_u2 VALUES (1, 100, 1, 1), (2, 300, 2, 1), (3, 400, 1, 1),
  (4, 350, 2, 1);
INSERT INTO rocpd_event_u2 VALUES (1, NULL, 11), (2, NULL, 12);
INSERT INTO rocpd_kernel_dispatch_u2 VALUES (1, 1, 1, 1, 1, 2, 0, 0, 64, 1, 1, 128, 1, 1, NULL, 1),
  (2, 1, 1, 2, 3, 4, 0, 0, 64, 1, 1, 64, 1, 1, NULL, 2), (3, 1, 1, 3, 9, 2, 0, 0, 64, 1, 1, 64, 1,
  1, NULL, NULL);

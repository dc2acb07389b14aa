-- Fuzz seed written for gpuwhy (same rows as rocm_importer_test.cc).
CREATE TABLE rocpd_string (id integer PRIMARY KEY, string varchar(4096) NOT NULL);
CREATE TABLE rocpd_op (id integer PRIMARY KEY, gpuId integer, queueId integer,
  sequenceId integer, completionSignal varchar(18), start integer, "end" integer,
  description_id integer, opType_id integer);
CREATE TABLE rocpd_api (id integer PRIMARY KEY, pid integer, tid integer, start integer,
  "end" integer, apiName_id integer, args_id integer);
CREATE TABLE rocpd_api_ops (id integer PRIMARY KEY, api_id integer, op_id integer);
CREATE TABLE rocpd_kernelapi (api_ptr_id integer PRIMARY KEY, stream varchar(18), gridX integer,
  gridY integer, gridZ integer, workgroupX integer, workgroupY integer, workgroupZ integer,
  groupSegmentSize integer, privateSegmentSize integer, kernelArgAddress varchar(18),
  aquireFence varchar(8), releaseFence varchar(8), codeObject_id integer, kernelName_id integer);
CREATE TABLE rocpd_copyapi (api_ptr_id integer PRIMARY KEY, stream varchar(18), size integer,
  width integer, height integer, kind integer, dst varchar(18), src varchar(18),
  dstDevice integer, srcDevice integer, sync bool, pinned bool);
CREATE TABLE rocpd_monitor (id integer PRIMARY KEY, deviceType varchar(16), deviceId integer,
  monitorType varchar(16), start integer, "end" integer, value varchar(255));
CREATE TABLE rocpd_metadata (id integer PRIMARY KEY, tag varchar(4096), value varchar(4096));

INSERT INTO rocpd_string VALUES (1, ''), (2, 'hipLaunchKernel'), (3, 'hipExtModuleLaunchKernel'),
  (4, 'KernelExecution'), (5, 'small_kernel'), (6, 'Cijk_gemm'), (7, 'CopyHostToDevice'),
  (8, 'hipMemcpyAsync'), (9, 'UserMarker'), (10, 'epoch 1');
INSERT INTO rocpd_api VALUES (1, 10, 11, 100, 150, 2, 1), (2, 10, 11, 200, 260, 3, 1),
  (3, 10, 11, 300, 320, 8, 1), (4, 10, 11, 50, 5000, 9, 10);
INSERT INTO rocpd_op VALUES (1, 2, 0, 1, '', 400, 900, 5, 4), (2, 2, 0, 2, '', 1000, 3000, 6, 4),
  (3, 2, 1, 3, '', 3100, 3600, 1, 7);
INSERT INTO rocpd_api_ops VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3);
INSERT INTO rocpd_kernelapi VALUES (1, '0x0', 8, 1, 1, 128, 1, 1, 0, 0, '', '', '', 1, 5),
  (2, '0x0', 1792, 1, 1, 256, 1, 1, 4096, 0, '', '', '', 1, 6);
INSERT INTO rocpd_copyapi VALUES (3, '0x0', 65536, 0, 0, 1, '', '', 2, -1, 0, 1);
INSERT INTO rocpd_monitor VALUES (1, 'gpu', 2, 'sclk', 100, 200, '1700'),
  (2, 'gpu', 2, 'sclk', 200, 300, '800');

-- Fuzz seed written for gpuwhy (same rows as rocm_importer_test.cc).
CREATE TABLE HIP ("BeginNs" INTEGER, "EndNs" INTEGER, "pid" INTEGER, "tid" INTEGER, "Name" TEXT,
  "args" TEXT, "Index" INTEGER, "Data" TEXT, "__section" INTEGER, "__lane" INTEGER,
  "DurationNs" INTEGER);
CREATE TABLE OPS ("BeginNs" INTEGER, "EndNs" INTEGER, "dev-id" INTEGER, "queue-id" INTEGER,
  "Name" TEXT, "pid" INTEGER, "tid" INTEGER, "roctx-range" TEXT, "stream-id" INTEGER,
  "Index" INTEGER, "Data" TEXT, "__section" INTEGER, "__lane" INTEGER, "DurationNs" INTEGER);
CREATE TABLE COPY ("BeginNs" INTEGER, "EndNs" INTEGER, "dev-id" INTEGER, "queue-id" INTEGER,
  "Name" TEXT, "pid" INTEGER, "tid" INTEGER, "roctx-range" TEXT, "stream-id" INTEGER,
  "Index" INTEGER, "Data" TEXT, "__section" INTEGER, "__lane" INTEGER, "DurationNs" INTEGER);
CREATE TABLE KERN ("Index" INTEGER, "KernelName" TEXT);

INSERT INTO HIP VALUES (100, 200, 9, 9, 'hipLaunchKernel', '', 1, '', 2, 9, 100),
  (300, 900, 9, 9, 'hipMemcpy', '', 2, '', 2, 9, 600);
INSERT INTO OPS VALUES (250, 290, 4, 0, 'vector_add(float*) [clone .kd]', 9, 9, '', 0, 1, '', 1,
  0, 40);
INSERT INTO COPY VALUES (310, 880, 4, 0, 'CopyDeviceToHost', 9, 9, '', 0, 2, '', 1, 0, 570);

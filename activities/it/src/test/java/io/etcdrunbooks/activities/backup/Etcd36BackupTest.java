package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.testkit.RealEtcd;

@RealEtcd
class Etcd36BackupTest extends BackupActivitiesContract {

  @Override
  String version() {
    return "3.6.16";
  }
}

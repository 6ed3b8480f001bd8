package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.testkit.RealEtcd;

@RealEtcd
class Etcd35BackupTest extends BackupActivitiesContract {

  @Override
  String version() {
    return "3.5.30";
  }
}

package io.etcdrunbooks.activities.etcd;

import io.etcdrunbooks.testkit.RealEtcd;

@RealEtcd
class Etcd35ActivitiesTest extends EtcdActivitiesContract {

  @Override
  String version() {
    return "3.5.30";
  }
}

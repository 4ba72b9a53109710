"""make-questions.py [CORPUS]: writes questions.jsonl beside it from the list
below. Each question's expected symbol and start line were found by reading
the code (grep) in the corpus of scripts/fetch-scale-corpus.sh (default
/work/scale-corpus/repos); the end line is the declaration's closing brace at
column 0 (a tab-indented var entry: its closing "\t}"). No ragbot answer was
seen before the list was written."""
import json, os, re, sys
R=(sys.argv[1] if len(sys.argv) > 1 else '/work/scale-corpus/repos').rstrip('/')+'/'
def span(corpus, path, line, sym):
    L=open(R+corpus+'/'+path).read().split('\n')
    assert L[line-1].startswith(('func','type','\t')), (path, line, L[line-1])
    # end: the first "}" at column 0 after start ("\t}" for a var entry)
    close = '}' if not L[line-1].startswith('\t') else '\t}'
    for i in range(line, len(L)):
        if L[i] == close or (close=='}' and L[i].startswith('}') ):
            return {"path": path, "symbol": sym, "start_line": line, "end_line": i+1}
    raise Exception(path)
Q=[
("kubernetes","identifier","where is Scheduler.ScheduleOne defined?",[("pkg/scheduler/schedule_one.go",67,"Scheduler.ScheduleOne")]),
("kubernetes","semantic","where does the kubelet decide to evict pods when the node is low on memory or disk?",[("pkg/kubelet/eviction/eviction_manager.go",256,"managerImpl.synchronize")]),
("kubernetes","lowercase","kube-proxy iptables rules sync",[("pkg/proxy/iptables/proxier.go",625,"Proxier.syncProxyRules")]),
("kubernetes","paraphrase","how does kubernetes check if a node has enough cpu and memory free for a pod",[("pkg/scheduler/framework/plugins/noderesources/fit.go",654,"Fit.Filter")]),
("kubernetes","lowercase","where is the kubelet syncloop",[("pkg/kubelet/kubelet.go",2671,"Kubelet.syncLoop")]),
("kubernetes","semantic","where does the garbage collector delete objects whose owners are gone?",[("pkg/controller/garbagecollector/garbagecollector.go",503,"GarbageCollector.attemptToDeleteItem")]),
("client-go","identifier","NewSharedIndexInformer - where's that?",[("tools/cache/shared_informer.go",419,"NewSharedIndexInformer")]),
("client-go","semantic","where does the leader election loop keep renewing the lease?",[("tools/leaderelection/leaderelection.go",279,"LeaderElector.renew")]),
("client-go","lowercase","exponential failure rate limiter for the workqueue",[("util/workqueue/default_rate_limiters.go",95,"NewItemExponentialFailureRateLimiter"),("util/workqueue/default_rate_limiters.go",99,"NewTypedItemExponentialFailureRateLimiter")]),
("apiserver","semantic","where does the api server limit the number of requests in flight?",[("pkg/server/filters/maxinflight.go",126,"WithMaxInFlightLimit")]),
("apiserver","identifier","audit log backend NewBackend",[("plugin/pkg/audit/log/backend.go",54,"NewBackend")]),
("k8s-api","identifier","where is the PodSpec struct defined?",[("core/v1/types.go",4358,"PodSpec")]),
("prometheus","identifier","DB.Compact in the tsdb",[("tsdb/db.go",1554,"DB.Compact")]),
("prometheus","lowercase","rangeEval",[("promql/engine.go",1969,"evaluator.rangeEval")]),
("prometheus","semantic","where are relabeling rules applied to a label set?",[("model/relabel/relabel.go",274,"ProcessBuilder"),("model/relabel/relabel.go",284,"relabel")]),
("prometheus","config","where is the default global scrape interval and evaluation interval set?",[("config/config.go",174,"DefaultGlobalConfig")]),
("etcd-server","semantic","where does etcd revoke leases that have expired?",[("lease/lessor.go",640,"lessor.revokeExpiredLeases")]),
("etcd-server","identifier","raftNode.start",[("etcdserver/raft.go",174,"raftNode.start")]),
("go-ethereum","identifier","where is opCall implemented?",[("core/vm/instructions.go",736,"opCall")]),
("go-ethereum","identifier","BlockChain.InsertChain",[("core/blockchain.go",1878,"BlockChain.InsertChain")]),
("go-ethereum","paraphrase","how does geth work out what gas tip to suggest to users",[("eth/gasprice/gasprice.go",161,"Oracle.SuggestTipCap")]),
("go-ethereum","semantic","where does the node discovery table refresh its buckets?",[("p2p/discover/table.go",474,"Table.doRefresh")]),
("pebble","semantic","where does pebble choose which level to compact based on its score?",[("compaction_picker.go",1387,"compactionPickerByScore.pickAutoScore")]),
("pebble","lowercase","flush memtable to sstable",[("compaction.go",1623,"DB.flush1")]),
("x-tools","identifier","Inspector.Preorder",[("go/ast/inspector/inspector.go",103,"Inspector.Preorder")]),
("x-tools","semantic","where does the ssa builder build a function's body?",[("go/ssa/builder.go",2902,"builder.buildFunction"),("go/ssa/builder.go",2935,"builder.buildFromSyntax")]),
("x-tools","identifier","packages.Load entry point",[("go/packages/packages.go",261,"Load")]),
("istio","semantic","where does pilot push configuration to the connected proxies?",[("pilot/pkg/xds/discovery.go",288,"DiscoveryServer.Push"),("pilot/pkg/xds/discovery.go",323,"DiscoveryServer.ConfigUpdate"),("pilot/pkg/xds/ads.go",566,"DiscoveryServer.AdsPushAll")]),
("istio","lowercase","sidecar injection webhook",[("pkg/kube/inject/webhook.go",1177,"Webhook.inject"),("pkg/kube/inject/webhook.go",465,"injectPod")]),
("victoriametrics","semantic","where are duplicate samples removed according to the dedup interval?",[("lib/storage/dedup.go",30,"DeduplicateSamples")]),
("moby","semantic","where does the docker daemon connect a container to its networks when it starts?",[("daemon/container_operations.go",430,"Daemon.allocateNetwork")]),
("moby","lowercase","json-file log driver constructor",[("daemon/logger/jsonfilelog/jsonfilelog.go",48,"New")]),
("containerd","paraphrase","what decides when containerd cleans up content nobody uses anymore",[("plugins/gc/scheduler.go",236,"gcScheduler.run"),("core/metadata/db.go",383,"DB.GarbageCollect")]),
("grpc-go","semantic","where is the exponential backoff delay computed for reconnects?",[("internal/backoff/backoff.go",56,"Exponential.Backoff")]),
("grpc-go","identifier","ClientConn.Invoke",[("call.go",29,"ClientConn.Invoke")]),
("nats-server","semantic","where does the server send pings to detect dead client connections?",[("server/client.go",6124,"client.processPingTimer")]),
("nats-server","lowercase","consumer redelivery of unacked messages after the ack wait",[("server/consumer.go",6304,"consumer.checkPending")]),
]
out=[]
for i,(c,k,q,exp) in enumerate(Q,1):
    ex=[]
    for p,l,s in exp:
        if l is None:
            L=open(R+c+'/'+p).read().split('\n')
            l=[j+1 for j,x in enumerate(L) if re.match(r'^func Process\(',x)][0]
        ex.append(span(c,p,l,s))
    out.append({"id":"SC%03d"%i,"corpus":c,"kind":k,"question":q,"expect":ex})
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),'questions.jsonl'),'w') as f:
    for o in out: f.write(json.dumps(o)+'\n')
print(len(out))

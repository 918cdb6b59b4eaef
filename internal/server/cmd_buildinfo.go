package server

import (
	"context"
	"runtime"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/wire"
)

func init() {
	register(admin(cmdBuildInfo, anyone(), "buildInfo", "buildinfo"))
}

// cmdBuildInfo reports a MongoDB 7.0 version so clients enable 7.0
// features.
func cmdBuildInfo(context.Context, *Server, *Request) (bsoncore.Document, error) {
	va := bsoncore.NewArrayBuilder()
	for _, x := range versionArray {
		va.AppendInt32(x)
	}
	return bsoncore.NewDocumentBuilder().
		AppendString("version", MongoVersion).
		AppendString("gitVersion", "lode").
		AppendArray("modules", bsoncore.NewArrayBuilder().Build()).
		AppendString("allocator", "system").
		AppendString("javascriptEngine", "none").
		AppendString("sysInfo", "deprecated").
		AppendArray("versionArray", va.Build()).
		AppendDocument("openssl", bsoncore.NewDocumentBuilder().
			AppendString("running", "disabled").
			AppendString("compiled", "disabled").Build()).
		AppendDocument("buildEnvironment", bsoncore.NewDocumentBuilder().
			AppendString("distmod", "lode").
			AppendString("distarch", runtime.GOARCH).
			AppendString("cc", runtime.Version()).
			AppendString("target_arch", runtime.GOARCH).
			AppendString("target_os", runtime.GOOS).Build()).
		AppendInt32("bits", 64).
		AppendBoolean("debug", false).
		AppendInt32("maxBsonObjectSize", wire.MaxBSONObjectSize).
		AppendArray("storageEngines", bsoncore.NewArrayBuilder().AppendString("lode").Build()).
		Build(), nil
}

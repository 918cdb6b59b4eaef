package testenv

import (
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// MetadataImage is image i of the metadata pattern (patterns/metadata):
// twelve {key, value} pairs under metadata, with "MIME type" cycling
// through three values and "Flash" through four, so a third of the images
// are JPEGs and a twelfth are JPEGs with Flash "No, auto".
func MetadataImage(i int) bson.D {
	mimes := []string{"image/jpeg", "image/png", "image/gif"}
	flashes := []string{"No, auto", "Yes", "No", "Auto"}
	return bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "metadata", Value: bson.A{
		bson.D{{Key: "key", Value: "File Name"}, {Key: "value", Value: fmt.Sprintf("img_%d.jpg", i)}},
		bson.D{{Key: "key", Value: "File size"}, {Key: "value", Value: 1000 + i%5000}},
		bson.D{{Key: "key", Value: "MIME type"}, {Key: "value", Value: mimes[i%3]}},
		bson.D{{Key: "key", Value: "Image size"}, {Key: "value", Value: bson.D{{Key: "width", Value: 480}, {Key: "height", Value: 360}}}},
		bson.D{{Key: "key", Value: "Camera make"}, {Key: "value", Value: "Canon"}},
		bson.D{{Key: "key", Value: "Camera model"}, {Key: "value", Value: "Canon PowerShot S40"}},
		bson.D{{Key: "key", Value: "Image timestamp"}, {Key: "value", Value: time.Unix(int64(i), 0)}},
		bson.D{{Key: "key", Value: "Image number"}, {Key: "value", Value: fmt.Sprintf("117-%d", i)}},
		bson.D{{Key: "key", Value: "Exposure time"}, {Key: "value", Value: "1/500 s"}},
		bson.D{{Key: "key", Value: "Aperture"}, {Key: "value", Value: "F4.9"}},
		bson.D{{Key: "key", Value: "Exposure bias"}, {Key: "value", Value: "0 EV"}},
		bson.D{{Key: "key", Value: "Flash"}, {Key: "value", Value: flashes[i%4]}},
	}}}
}

// ElemMatch is {$elemMatch: {key: key, value: value}} on a metadata pair.
func ElemMatch(key string, value any) bson.D {
	return bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "key", Value: key}, {Key: "value", Value: value}}}}
}

package auth

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// countUsers counts the stored users (at most 1), without the cache.
func (s *Store) countUsers(ctx context.Context) (int64, error) {
	n, err := s.eng.Count(ctx, "admin", usersColl, nil, 0, 1, bsoncore.Value{})
	if err != nil {
		return 0, fmt.Errorf("count users: %w", err)
	}
	return n, nil
}

// CreateFirstUser creates u through the localhost exception: only while
// no user exists, checked and inserted under the user-management lock,
// so that of concurrent unauthenticated createUser commands exactly one
// creates its user. The others fail as any unauthenticated command does
// once a user exists: Unauthorized (13), "Command createUser requires
// authentication".
func (s *Store) CreateFirstUser(ctx context.Context, u *User) error {
	s.umc.Lock()
	defer s.umc.Unlock()
	n, err := s.countUsers(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		return errs.New(errs.Unauthorized, "Command createUser requires authentication")
	}
	return s.CreateUser(ctx, u)
}

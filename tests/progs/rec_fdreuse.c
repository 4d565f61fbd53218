/*
 * rec_fdreuse: fd numbers reused by calls that are not file opens.
 * A directory opened with open(O_DIRECTORY) is closed by closedir() inside
 * libc; the pipe made next gets its number and 30 one-byte reads go through
 * it. Then a socketpair and a socket. Prints the fds it got, one line:
 *   dir=N pipe=R,W pair=A,B sock=S
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "/";
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    int p[2], sp[2], s;
    char c = 'x';

    if (!d)
        return 1;
    while (readdir(d))
        ;
    closedir(d);
    if (pipe(p) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0)
        return 1;
    for (int i = 0; i < 30; i++) {
        if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
            return 1;
    }
    s = socket(AF_UNIX, SOCK_STREAM, 0);
    printf("dir=%d pipe=%d,%d pair=%d,%d sock=%d\n", dfd, p[0], p[1], sp[0], sp[1], s);
    return 0;
}

/* id - who this process acts for: `uid=N(name) gid=N(name)`, the names
 * from /etc/passwd and /etc/group (left out when there is none). */
#include <pwd.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    int uid = getuid(), gid = getgid();
    struct passwd *pw = getpwuid(uid);
    struct group *gr;

    printf("uid=%d", uid);
    if (pw)
        printf("(%s)", pw->pw_name);
    printf(" gid=%d", gid);
    if ((gr = getgrgid(gid)))
        printf("(%s)", gr->gr_name);
    printf("\n");
    return 0;
}
